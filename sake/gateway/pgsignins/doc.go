// Package pgsignins keeps a gateway's sign-ins in progress (the per-user
// entries' authorization requests whose callback has not come back) in
// PostgreSQL (pgx), so that gateway replicas behind a balancer without
// affinity serve them as one: a sign-in begun on one replica completes
// when the browser's callback lands on another, and the caller waiting on
// the first goes on.
//
//	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	signIns, err := pgsignins.New(ctx, pool)
//	g, err := gateway.New(ctx, cfg, gateway.UserTokens(vault), gateway.PublicURL(public),
//		gateway.PendingSignIns(signIns))
//
// A row holds the sign-in's state, its user and entry, and its secret
// half (the PKCE verifier and client) as the gateway sealed it with its
// token vault's key, bound to the state, user and entry: the database
// holds no secret in clear. A callback takes its row once (DELETE ...
// RETURNING): a replayed state finds nothing, on every replica. How the
// sign-in ended is then kept for its waiter for at most
// gateway.EndedSignInTTL; the waiter asks for it with backoff (at most
// every second).
//
// The table sake_pending_sign_ins is created by versioned, idempotent
// migrations that New runs under an advisory lock, so replicas may start
// at once; it lives in the schema the pool's search_path names. Add and
// Finish run in one transaction holding an advisory lock of the table,
// so the bounds hold under concurrent sign-ins on any number of replicas;
// they also delete the expired rows.
//
// # Limits and defaults
//
//	what                               default   option      beyond it
//	sign-ins open, over all users      1000      MaxOpen     Add fails with gateway.ErrTooManySignIns
//	sign-ins open of one user          64        MaxPerUser  Add fails with gateway.ErrTooManySignIns
//	ended ones not yet learned         MaxOpen   (same)      not kept: the waiter learns from the vault
//	one sealed sign-in                 64 KiB    fixed       Add fails with ErrTooLarge
//	a state, user or entry             2 KiB     fixed       Add fails with ErrTooLarge
//	why one failed                     1 KiB     fixed       cut
package pgsignins
