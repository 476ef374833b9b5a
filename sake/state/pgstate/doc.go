// Package pgstate keeps sake/state values in PostgreSQL, so that a value
// written on one replica is read on every other:
//
//	pool, _ := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	store, err := pgstate.New(ctx, pool)
//	if err != nil { ... }
//	st, err := state.New(state.Config{Store: store, Key: sharedKey})
//
// Every replica must use the same Config.Key, or a handle made on one is
// refused by another.
//
// The table sake_state (and sake_migrations, shared with Sake's other
// stores) is created by versioned, idempotent migrations that New runs, in
// the schema the pool's search_path names. Each read is one statement and
// each write one transaction: the scope is locked for the write (an
// advisory transaction lock on its name) so that its bounds hold under
// concurrent writers on any number of replicas, and a conditional write
// compares the row's version under that lock. A write also removes the
// scope's expired rows; Sweep removes every expired row, for a periodic
// job.
package pgstate
