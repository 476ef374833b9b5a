// Package pgusertokens keeps a gateway's sealed user tokens in PostgreSQL
// (pgx), so that every replica of the gateway holds the tokens any of them
// saved: a user signed in to a remote through one replica calls it as
// themselves through every other.
//
//	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	store, err := pgusertokens.New(ctx, pool)
//	keys, err := usertokens.KeyFromEnv("GATEWAY_TOKEN_KEY")
//	vault, err := usertokens.New(store, keys...)
//
// The store only ever holds what the vault sealed (AES-GCM, bound to the
// user and the resource): the database, its backups and its replicas hold
// ciphertext, and a row copied to another user does not open. Every
// replica needs the same key.
//
// The table sake_user_tokens (and sake_migrations, shared with Sake's
// other stores) is created by versioned, idempotent migrations that New
// runs under an advisory lock, so replicas may start at once; it lives in
// the schema the pool's search_path names. Get and Delete are one
// statement; Put is one transaction that holds an advisory lock on the
// user, so that the bound on a user's tokens holds under concurrent saves
// from any number of replicas.
//
// # Limits and defaults
//
//	what                      default   option          beyond it
//	tokens of one user        64        MaxPerUser      the user's least recently saved token is deleted
//	one sealed token          64 KiB    MaxSealedBytes  Put fails with ErrTooLarge, nothing changes
//	a user's name             256 bytes fixed           Put fails with ErrTooLarge
//	a resource                2 KiB     fixed           Put fails with ErrTooLarge
//	users                     none      Sweep           Sweep deletes the tokens not saved for a while
//
// There is no bound on the number of users, and no eviction of one user
// for another: a row exists only once a user has signed in at the
// gateway (its identity provider admits them) and then at the remote's
// authorization server, which issued the token, so the users are bounded
// by those two; each one's share of the table is bounded above. How large
// the table may grow is the operator's to size, like the rest of the
// database; a bound here would have to count every user on every new
// sign-in, under one lock shared by all replicas. Run Sweep now and then
// to delete the tokens of users not seen for long (they sign in again).
//
// When the database cannot be reached, or the context ends, every method
// fails with an error that says what it was doing; Get never reports a
// token absent because it could not read it.
package pgusertokens
