package sake

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
)

// The server owns every legacy session: initialize registers it with its
// owner, a transport names it (Inbound.SessionID) or holds it
// (transport.Conn), and Session.Close forgets it. Two limits bound them:
//
//   - Limits.MaxSessionsPerOwner (default 100): the sessions of one
//     owner, where an anonymous caller's owner is its remote address
//     (Inbound.RemoteAddr) and an anonymous caller without one (stdio, in
//     memory: the host vouches for it) has no per-owner limit. At the
//     limit, initialize closes the owner's least recently used idle
//     session (no request running, no stream open) and takes its place;
//     with none idle it is refused with CodeServerBusy (HTTP 503).
//   - Limits.MaxSessions (default 10000): every session of the server; at
//     the limit the owner's least recently used idle session is evicted
//     the same way, or, when the owner has none idle, that of the owner
//     holding the most sessions (if it holds more than one beyond the
//     newcomer), so that a few owners cannot keep everyone else out; with
//     none of those idle initialize is refused.
//
// Anonymous callers are charged to their remote address: an IPv4 address
// whole, an IPv6 address by its /64 prefix (one host or site usually holds
// a whole /64).

// Why the server refused a message for a reason outside it, as
// Reply.Cause says: a transport picks its status from these (HTTP: 503
// with Retry-After) and tells the client what happened.
var (
	// ErrTooManySessions: initialize found no room within
	// Limits.MaxSessions or Limits.MaxSessionsPerOwner, and no idle
	// session of the owner to evict.
	ErrTooManySessions = errors.New("sake: too many sessions: every session of the owner, or of the server, is in use")
	// ErrShuttingDown: the server is stopping (Shutdown) and opens no
	// session.
	ErrShuttingDown = errors.New("sake: the server is shutting down")
	// ErrSessionStore: the session store (the SessionStore option) failed,
	// so a shared session could not be stored or read. The cause wraps it
	// together with the store's own error (errors.Is finds both); the
	// session itself is not known to be gone.
	ErrSessionStore = errors.New("sake: the session store failed")
)

// TooManySessionsMessage is the message of the CodeServerBusy error (HTTP
// 503 with Retry-After) that refuses an initialize when there is no room
// for another legacy session: every session within Limits.MaxSessions or
// Limits.MaxSessionsPerOwner, or within a transport's own cap (such as
// plug.MaxSessions), is in use, so none could be evicted. One condition,
// one message, whichever bound was met.
const TooManySessionsMessage = "Server busy: too many sessions open and none idle; close idle ones (DELETE) or retry later"

// storeError is err, from the session store, marked as ErrSessionStore.
func storeError(err error) error { return fmt.Errorf("%w: %w", ErrSessionStore, err) }

// sessionTable is the server's sessions by owner key, for quotas.
type sessionTable struct {
	mu      sync.Mutex
	n       int
	byOwner map[string]map[*Session]struct{}
}

// ownerKey is whom a session counts against: its owner, or an anonymous
// caller's remote address (an IPv6 one by its /64, what one host or site
// is given); "" counts against no owner.
func ownerKey(owner, remote string) string {
	if owner != "" {
		return owner
	}
	if remote != "" {
		return "addr:" + addrKey(remote)
	}
	return ""
}

// addrKey is the part of a remote address that anonymous sessions count
// against: an IPv4 address whole, an IPv6 address's /64 prefix, anything
// else as it is.
func addrKey(remote string) string {
	a, err := netip.ParseAddr(remote)
	if err != nil {
		return remote
	}
	a = a.Unmap()
	if a.Is6() {
		return netip.PrefixFrom(a.WithZone(""), 64).Masked().String()
	}
	return a.String()
}

// admit registers a new session, evicting the owner's least recently used
// idle session when a limit is reached. It returns false when there is no
// room.
func (s *Server) admit(sess *Session) bool {
	t := &s.sessTable
	maxAll := capOf(s.opts.limits.MaxSessions, defaultMaxSessions)
	maxOwner := capOf(s.opts.limits.MaxSessionsPerOwner, defaultMaxSessionsPerOwner)
	for {
		t.mu.Lock()
		mine := t.byOwner[sess.key]
		full := (maxAll > 0 && t.n >= maxAll) || (sess.key != "" && maxOwner > 0 && len(mine) >= maxOwner)
		if !full {
			if t.byOwner == nil {
				t.byOwner = make(map[string]map[*Session]struct{})
			}
			if mine == nil {
				mine = make(map[*Session]struct{})
				t.byOwner[sess.key] = mine
			}
			mine[sess] = struct{}{}
			t.n++
			t.mu.Unlock()
			s.sessions.Store(sess.id, sess)
			return true
		}
		lru := leastRecentIdle(mine)
		if lru == nil && !(sess.key != "" && maxOwner > 0 && len(mine) >= maxOwner) {
			// The server is full and the owner has nothing idle to give
			// up: the owner holding the most sessions gives up one, so
			// that no owner keeps the others out.
			if heavy := t.heaviest(); len(heavy) > len(mine)+1 {
				lru = leastRecentIdle(heavy)
			}
		}
		t.mu.Unlock()
		if lru == nil {
			return false
		}
		s.logger.Debug("sake: closing the least recently used idle session of an owner to make room", "for", sess.key, "owner", lru.key)
		lru.Close() // forgets it; try again
	}
}

// leastRecentIdle returns the least recently used idle session of set, or
// nil when none is idle.
func leastRecentIdle(set map[*Session]struct{}) *Session {
	var lru *Session
	for o := range set {
		if o.idle() && (lru == nil || o.lastUsed.Load() < lru.lastUsed.Load()) {
			lru = o
		}
	}
	return lru
}

// heaviest returns the sessions of the owner holding the most; t.mu is
// held. Sessions that count against no owner are not considered.
func (t *sessionTable) heaviest() map[*Session]struct{} {
	var most map[*Session]struct{}
	for key, set := range t.byOwner {
		if key != "" && len(set) > len(most) {
			most = set
		}
	}
	return most
}

// forget removes a closed session.
func (s *Server) forget(sess *Session) {
	s.sessions.Delete(sess.id)
	t := &s.sessTable
	t.mu.Lock()
	if mine := t.byOwner[sess.key]; mine != nil {
		if _, ok := mine[sess]; ok {
			delete(mine, sess)
			t.n--
			if len(mine) == 0 {
				delete(t.byOwner, sess.key)
			}
		}
	}
	t.mu.Unlock()
}

// lookupSession returns the live session with that id if owner owns it,
// nil if there is none, or an error wrapping ErrSessionStore when the
// store could not say.
func (s *Server) lookupSession(id, owner string) (*Session, error) {
	if s.share.store != nil {
		return s.sharedSession(id, owner)
	}
	v, ok := s.sessions.Load(id)
	if !ok {
		return nil, nil
	}
	sess := v.(*Session)
	if sess.owner != owner || sess.Closed() {
		return nil, nil
	}
	return sess, nil
}

// maxInFlight is the cap on the requests in flight per session or
// connection; 0 for none.
func (s *Server) maxInFlight() int {
	return capOf(s.opts.limits.MaxInFlight, defaultMaxInFlight)
}

// idle reports a session with no request running and no stream open for
// messages outside requests.
func (s *Session) idle() bool {
	if s.flight.len() > 0 || s.busy.Load() > 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.send == nil
}

// hold marks the session as in use by the transport until unhold (see
// transport.Hold, which calls unhold once per hold).
func (s *Session) hold() { s.busy.Add(1) }

// unhold ends one hold.
func (s *Session) unhold() { s.busy.Add(-1) }

// Owner returns who opened the session (Identity.Owner), "" for an
// anonymous caller.
func (s *Session) Owner() string { return s.owner }
