// Package pgstore keeps the authorization server's clients, credentials
// and consents in PostgreSQL (pgx/v5), so that the replicas of an
// application share them: a code issued by one replica is redeemed at
// another, and a replayed refresh token revokes its family everywhere.
//
//	pool, _ := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	store, err := pgstore.New(ctx, pool)
//	as, err := server.New(server.Config{Store: store, ...})
//
// New creates or upgrades the tables (sake_oauth_*) in the schema the
// pool's search_path names; the migrations are idempotent and safe to run
// from several replicas at once. Like the in-memory store, it holds only
// hashes of handles and of client secrets. Expired credentials are
// deleted as new ones are stored, a bounded batch at a time.
//
// The store passes the same contract as the in-memory one
// (server/storetest).
package pgstore
