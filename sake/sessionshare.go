package sake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// SessionStore shares legacy sessions with the other replicas through st
// (see [backend.SessionStore]; sake/pgreplica provides one), so that any
// replica serves any message of a session, behind a load balancer without
// sticky sessions.
func SessionStore(st backend.SessionStore) Option {
	return func(o *options) { o.sessionStore = st }
}

// replicaTag makes the ids of server-initiated requests unique across
// replicas, so that an answer relayed to every replica wakes one request.
func newReplicaTag() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sharing is the server's side of shared sessions.
type sharing struct {
	store backend.SessionStore
	stop  func()
	adopt sync.Mutex // one adoption at a time, so a session has one copy
}

// startSharing listens to the other replicas' relays, when there is a
// store.
func (s *Server) startSharing() {
	if st := s.opts.sessionStore; st != nil {
		s.share.store = st
		s.share.stop = st.ListenRelays(s.onRelay)
	}
}

// record is the shared state of sess.
func (sess *Session) record() *backend.SessionRecord {
	rec := &backend.SessionRecord{
		ID: sess.id, Version: sess.version, Owner: sess.owner, Key: sess.key,
		Capabilities: sess.capabilities, ClientInfo: sess.clientInfo, Offers: sess.offers,
		Initialized: sess.initialized.Load(), LogLevel: sess.logLevel.Load(), LastUsed: sess.lastUsedAt(),
	}
	sess.mu.Lock()
	for uri := range sess.subscriptions {
		rec.Subscriptions = append(rec.Subscriptions, uri)
	}
	sess.mu.Unlock()
	return rec
}

// apply takes the changeable state of rec.
func (sess *Session) apply(rec *backend.SessionRecord) {
	sess.initialized.Store(rec.Initialized)
	sess.logLevel.Store(rec.LogLevel)
	subs := make(map[string]struct{}, len(rec.Subscriptions))
	for _, uri := range rec.Subscriptions {
		subs[uri] = struct{}{}
	}
	sess.mu.Lock()
	sess.subscriptions = subs
	sess.mu.Unlock()
}

// shareSession stores a new session's record.
func (s *Server) shareSession(ctx context.Context, sess *Session) error {
	return s.share.store.SaveSession(ctx, sess.record())
}

// sessionChanged stores the changed state of a shared session and tells
// the replica holding its stream.
func (s *Server) sessionChanged(sess *Session) {
	if !sess.shared {
		return
	}
	ctx := context.Background()
	if err := s.share.store.SaveSession(ctx, sess.record()); err != nil {
		s.logger.Error("sake: storing a shared session's state", "session", sess.id, "err", err)
		return
	}
	s.relay(backend.RelayChanged, sess.id, nil)
}

// streamChanged tells a [backend.SessionStreamStore] whether this replica
// holds sess's stream now: the last call records the last state.
func (s *Server) streamChanged(sess *Session) {
	st, ok := s.share.store.(backend.SessionStreamStore)
	if !ok {
		return
	}
	sess.streamSave.Lock()
	defer sess.streamSave.Unlock()
	if sess.Closed() {
		return
	}
	if err := st.SessionStreamHeld(context.Background(), sess.id, sess.hasSender()); err != nil {
		s.logger.Error("sake: recording a shared session's stream", "session", sess.id, "err", err)
	}
}

// relay sends a relay, logging a failure.
func (s *Server) relay(kind, session string, msg []byte) {
	if err := s.share.store.Relay(context.Background(), backend.SessionRelay{Session: session, Kind: kind, Message: msg}); err != nil {
		s.logger.Error("sake: relaying to the other replicas", "kind", kind, "session", session, "err", err)
	}
}

// sharedSession returns the session with that id from the store, as this
// replica's copy, refreshed: on every message of a shared session the
// replica reads its record, so changes made on other replicas hold. It is
// nil when the store has no such session of owner, and the error wraps
// ErrSessionStore when the store could not be read.
func (s *Server) sharedSession(id, owner string) (*Session, error) {
	ctx := context.Background()
	rec, err := s.share.store.TouchSession(ctx, id)
	if err != nil {
		s.logger.Error("sake: reading a shared session", "session", id, "err", err)
		return nil, storeError(err)
	}
	if rec == nil {
		// Ended elsewhere: a copy adopted here by a request that read
		// the record before the end (its notice found no copy to close)
		// goes now, and holds no room.
		if v, ok := s.sessions.Load(id); ok {
			v.(*Session).closeHere()
		}
		return nil, nil
	}
	if rec.Owner != owner {
		return nil, nil
	}
	s.share.adopt.Lock()
	defer s.share.adopt.Unlock()
	if v, ok := s.sessions.Load(id); ok {
		sess := v.(*Session)
		if sess.Closed() {
			return nil, nil
		}
		sess.apply(rec)
		sess.touch()
		return sess, nil
	}
	sess := newSession(rec.Version, &rec.Capabilities, &rec.ClientInfo)
	sess.id, sess.srv, sess.owner, sess.key, sess.offers, sess.shared = rec.ID, s, rec.Owner, rec.Key, rec.Offers, true
	sess.apply(rec)
	if !s.admit(sess) {
		// The session lives; this replica has no room for its copy.
		return nil, ErrTooManySessions
	}
	return sess, nil
}

// subscribedElsewhere reports whether a shared session whose stream is
// held here subscribed to uri through another replica, in case the relay
// saying so has not arrived yet: the record decides.
func (s *Server) subscribedElsewhere(sess *Session, uri string) bool {
	if !sess.shared || !sess.hasSender() {
		return false
	}
	rec, err := s.share.store.LoadSession(context.Background(), sess.id)
	if err != nil || rec == nil {
		return false
	}
	sess.apply(rec)
	return sess.subscribed(uri)
}

// hasSender reports whether this replica holds the session's stream.
func (sess *Session) hasSender() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.send != nil
}

// onRelay acts on another replica's relay.
func (s *Server) onRelay(r backend.SessionRelay) {
	v, ok := s.sessions.Load(r.Session)
	if !ok {
		return
	}
	sess := v.(*Session)
	switch r.Kind {
	case backend.RelaySend:
		_ = sess.sendLocal(r.Message)
	case backend.RelayAnswer:
		if env, err := protocol.Peek(r.Message); err == nil {
			sess.deliver(env.ID, env.Result, env.Error)
		}
	case backend.RelayCancel:
		sess.flight.cancel(string(r.Message))
	case backend.RelayChanged:
		rec, err := s.share.store.LoadSession(context.Background(), r.Session)
		if err != nil {
			s.logger.Error("sake: reloading a shared session", "session", r.Session, "err", err)
			return
		}
		if rec != nil {
			sess.apply(rec)
		}
	case backend.RelayClosed:
		sess.closeHere()
	}
}

// closeIdle ends a session found idle for timeout by the transport (see
// transport.CloseIdle). A session shared with other replicas may be in
// use there: its copy here is dropped, and the session itself ends only
// when the store too says it has been idle that long.
func (sess *Session) closeIdle(timeout time.Duration) {
	if !sess.shared {
		sess.Close()
		return
	}
	rec, err := sess.srv.share.store.LoadSession(context.Background(), sess.id)
	if err == nil && rec != nil && time.Since(rec.LastUsed) < timeout {
		sess.closeHere()
		return
	}
	sess.Close()
}
