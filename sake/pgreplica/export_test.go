package pgreplica

import (
	"context"

	"github.com/sakemcp/sake-go/sake/backend"
)

// OnRelayHeard has fn called after each relay from another replica has
// been acted on (the record changed or ended, the message delivered). Set
// it before the server is built.
func OnRelayHeard(r *Replica, fn func(session, kind string)) { r.sessions.heardHook = fn }

// CachedSessions returns how many session records r keeps in memory.
func CachedSessions(r *Replica) int { return r.sessions.cache.len() }

// OnRelaySent calls fn with each relay r sends to the others.
func OnRelaySent(r *Replica, fn func(session, kind string)) { r.sessions.sentHook = fn }

// SetSessionCacheOff makes r keep no session record from now on.
func SetSessionCacheOff(r *Replica) {
	c := r.sessions.cache
	c.mu.Lock()
	c.limit = -1
	clear(c.records)
	c.mu.Unlock()
}

// SaveSessionRecord saves rec through r's session store, as the server
// does when a session's state changes.
func SaveSessionRecord(r *Replica, rec *backend.SessionRecord) error {
	return r.sessions.SaveSession(context.Background(), rec)
}

// LoadSessionRecord reads session id's record from the table.
func LoadSessionRecord(r *Replica, id string) (*backend.SessionRecord, error) {
	return r.sessions.LoadSession(context.Background(), id)
}

// OnConfirmAwaiting calls fn when a change of a session on r ("change of
// session ID") or its end ("end of session ID") starts waiting for the
// other replicas to confirm it. Set it before the server is built.
func OnConfirmAwaiting(r *Replica, fn func(about string)) { r.sessions.taken.AwaitHook = fn }
