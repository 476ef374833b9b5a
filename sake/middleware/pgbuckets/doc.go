// Package pgbuckets keeps the token buckets of a middleware.RateLimiter in
// PostgreSQL (pgx), so that replicas behind one load balancer share each
// caller's buckets: a limit of 10 calls a second per caller holds per
// caller, not per replica.
//
//	store, err := pgbuckets.New(ctx, pool)
//	rl, err := middleware.NewRateLimiter(limits, middleware.Store(store))
//
// # No round trip per call
//
// A replica does not ask the database for every token: it leases several
// at once (one statement takes up to LeaseTokens from the shared bucket,
// 10% of the bucket's burst by default) and spends them locally until they
// run out or their lease expires (LeaseTTL, one second by default). With
// a lease of n tokens a caller's calls cost one statement per n calls on
// each replica. Leased tokens are taken from the shared bucket, so the
// limit is never exceeded; tokens a replica leased and did not spend are
// lost when the lease expires, so a caller spread over k replicas may be
// refused up to k·(n−1) calls early. A lease of 1 is exact, at one
// statement per call.
//
// # Limits and defaults
//
//	what                          default                option       beyond it
//	tokens per lease              10% of burst, ≥ 1      LeaseTokens  capped at the burst
//	lease lifetime                1 s                    LeaseTTL     unspent tokens are dropped
//	leases held in memory         100000 keys            MaxKeys      expired leases, then any, are dropped (their tokens are lost)
//	rows in the database          one per bucket not full  Sweep      Sweep deletes the full ones
//
// Replicas compute with their own clocks: keep them synchronised (NTP).
// When the database cannot be reached, Take fails and the RateLimiter
// fails closed, or open with middleware.FailOpen.
package pgbuckets
