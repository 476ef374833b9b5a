// Package pgstore keeps the authorization server's clients, credentials
// and consents in PostgreSQL (pgx/v5), so that the replicas of an
// application share them: a code issued by one replica is redeemed at
// another, and a replayed refresh token revokes its family everywhere.
//
//	pool, _ := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	store, err := pgstore.New(ctx, pool)
//	defer store.Close()
//	as, err := server.New(server.Config{Store: store, ...})
//
// New creates or upgrades the tables (sake_oauth_*) in the schema the
// pool's search_path names; the migrations are idempotent and safe to run
// from several replicas at once. Like the in-memory store, it holds only
// hashes of handles and of client secrets. Expired credentials are
// deleted as new ones are stored, a bounded batch at a time.
//
// # Revocations
//
// The verifier of server.Server.Verifier refuses an access token whose
// authorization was revoked (a replayed code or refresh token, the
// revocation endpoint) on every replica at once, without a database read
// per request: the store is a server.RevocationList. Each store LISTENs
// on a connection of its own (opened like the pool's; LISTEN needs a
// session, so not through a transaction-pooling proxy) and keeps in
// memory the revoked access tokens that have not expired yet, at most
// MaxDenied (DefaultMaxDenied, 100000); a revocation NOTIFYs them when it
// commits. Past MaxDenied the store asks the database about each token
// until the list fits again.
//
// When the listening connection is lost the store fails closed: the
// verifier answers 503 (the client retries) until the store listens
// again, with a bounded backoff, and has re-read every revoked,
// unexpired token from the table, so nothing revoked meanwhile is
// missed. SyncRevocations waits until everything revoked so far is
// applied. Close stops the listening.
//
// The store passes the same contract as the in-memory one
// (server/storetest).
package pgstore
