package pgreplica

// OnRelayHeard has fn called after each relay from another replica has
// been acted on (the record changed or ended, the message delivered). Set
// it before the server is built.
func OnRelayHeard(r *Replica, fn func(session, kind string)) { r.sessions.heardHook = fn }

// CachedSessions returns how many session records r keeps in memory.
func CachedSessions(r *Replica) int { return r.sessions.cache.len() }
