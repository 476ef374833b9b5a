// Package pgbroker carries a server's broadcasts between its replicas on
// PostgreSQL LISTEN/NOTIFY: a list change or resource update raised on one
// replica (AddTool, RemoveTool, ResourceUpdated, NotifyListChanged, ...)
// reaches the subscriptions/listen streams and the legacy sessions held by
// every replica, once each.
//
//	broker := pgbroker.New(pool, replicaID, logger)
//	srv, err := sake.New(&App{}, sake.Broker(broker))
//
// Broadcasts published by one replica arrive at each other replica in the
// order they were published; broadcasts of different replicas interleave
// in the order PostgreSQL committed them. The broker needs no table.
//
// A resource update travels in the NOTIFY payload, which holds under 8000
// bytes: a URI longer than MaxURI (7000 bytes), or one whose JSON encoding
// is longer than 7999 bytes (control characters, quotes and backslashes
// are escaped; <, > and & are not), reaches this replica's clients only,
// and Publish returns an error saying so.
package pgbroker
