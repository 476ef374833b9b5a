// Package backend holds the interfaces through which a sake server keeps
// state outside its process, so that several replicas behind one load
// balancer serve the same clients, and a long tool call outlives the
// request that started it. A tool author does not need this package: the
// options that take a backend (sake.Broker, sake.SessionStore, sake.Tasks)
// are in the root package, and the packages below provide the backends.
// It is read by those who write a backend of their own.
//
//   - Broker carries broadcasts (list changes, resource updates) between
//     replicas. sake/pgbroker implements it on PostgreSQL LISTEN/NOTIFY;
//     sake/pgreplica wires it for a replica.
//   - SessionStore, and SessionStreamStore when the store also records
//     which replica holds a session's stream, share legacy sessions
//     (SessionRecord) between replicas and carry the messages
//     (SessionRelay) only one replica can act on. sake/pgreplica
//     implements both on PostgreSQL.
//   - TaskManager keeps tasks (Task) and hands their work a TaskControl to
//     report through. sake/tasks implements it, in memory or over a shared
//     store such as sake/tasks/pgstore.
//
// The package imports only the standard library and sake/protocol, so a
// backend links no server.
package backend
