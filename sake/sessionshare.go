package sake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// SessionStore shares legacy sessions between the replicas of a server, so
// that any replica serves any message of a session created on another,
// behind a load balancer without sticky sessions. sake/pgreplica provides
// one on PostgreSQL.
//
// The store keeps what initialize negotiated and what later messages
// change (the record); relays carry, between replicas, what only the
// replica holding a stream or a waiting request can act on. A server with a
// store reads the record on every message of a shared session it handles,
// so a log level or subscription set on one replica holds at once on the
// others.
type SessionStore interface {
	// SaveSession creates or replaces the record of rec.ID.
	SaveSession(ctx context.Context, rec *SessionRecord) error
	// TouchSession marks session id as used now and returns its record,
	// or nil (and no error) when there is none. An error says the store
	// could not tell: the message is refused with "retry later" (HTTP
	// 503), not as a session that is gone, so only a store that knows the
	// session does not exist may answer nil. An error with a method
	// RetryAfter() time.Duration says when to retry.
	TouchSession(ctx context.Context, id string) (*SessionRecord, error)
	// LoadSession returns the record of session id without touching it,
	// or nil (and no error) when there is none.
	LoadSession(ctx context.Context, id string) (*SessionRecord, error)
	// DeleteSession forgets session id; an unknown id is no error.
	DeleteSession(ctx context.Context, id string) error
	// Relay sends r to every other replica.
	Relay(ctx context.Context, r SessionRelay) error
	// ListenRelays calls fn with every relay another replica sends, one
	// at a time, until stop is called. It returns once it is listening.
	ListenRelays(fn func(SessionRelay)) (stop func())
}

// SessionStreamStore is a SessionStore that also records which replica
// holds a session's own stream (its GET), so that a message for a stream
// no replica holds is not relayed at all. A replica's server tells it each
// time it starts or stops holding one, in the background; until the
// change has reached the others, a message raised there follows the state
// they knew.
type SessionStreamStore interface {
	SessionStore
	// SessionStreamHeld records that this replica now holds (held) or no
	// longer holds session id's stream.
	SessionStreamHeld(ctx context.Context, id string, held bool) error
}

// SessionRecord is the shared state of a legacy session.
type SessionRecord struct {
	ID            string
	Version       string
	Owner         string
	Key           string // what it counts against for quotas
	Capabilities  protocol.ClientCapabilities
	ClientInfo    protocol.Implementation
	Offers        []string
	Initialized   bool
	LogLevel      int32 // severity, 0 for none
	Subscriptions []string
	LastUsed      time.Time
}

// What a SessionRelay asks of the replica that can act on it.
const (
	// RelaySend: deliver Message on the session's own stream, if this
	// replica holds it.
	RelaySend = "send"
	// RelayAnswer: Message is the client's answer to a request this
	// replica may be waiting for.
	RelayAnswer = "answer"
	// RelayCancel: Message is the id of a request to cancel, if it runs
	// here.
	RelayCancel = "cancel"
	// RelayChanged: the record changed (subscriptions, log level); a
	// replica holding the session's stream reloads it.
	RelayChanged = "changed"
	// RelayClosed: the session ended; every replica drops its copy.
	RelayClosed = "closed"
)

// SessionRelay is a message about a session from one replica to the
// others.
type SessionRelay struct {
	Session string
	Kind    string
	Message json.RawMessage
}

// WithSessionStore shares legacy sessions with the other replicas through
// st (see SessionStore).
func WithSessionStore(st SessionStore) Option { return func(o *options) { o.sessionStore = st } }

// replicaTag makes the ids of server-initiated requests unique across
// replicas, so that an answer relayed to every replica wakes one request.
func newReplicaTag() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sharing is the server's side of shared sessions.
type sharing struct {
	store SessionStore
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
func (sess *Session) record() *SessionRecord {
	rec := &SessionRecord{
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
func (sess *Session) apply(rec *SessionRecord) {
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
	s.relay(RelayChanged, sess.id, nil)
}

// streamChanged tells a SessionStreamStore whether this replica holds
// sess's stream now: the last call records the last state.
func (s *Server) streamChanged(sess *Session) {
	st, ok := s.share.store.(SessionStreamStore)
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
	if err := s.share.store.Relay(context.Background(), SessionRelay{Session: session, Kind: kind, Message: msg}); err != nil {
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
	if rec == nil || rec.Owner != owner {
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
func (s *Server) onRelay(r SessionRelay) {
	v, ok := s.sessions.Load(r.Session)
	if !ok {
		return
	}
	sess := v.(*Session)
	switch r.Kind {
	case RelaySend:
		_ = sess.sendLocal(r.Message)
	case RelayAnswer:
		if env, err := protocol.Peek(r.Message); err == nil {
			sess.deliver(env.ID, env.Result, env.Error)
		}
	case RelayCancel:
		sess.flight.cancel(string(r.Message))
	case RelayChanged:
		rec, err := s.share.store.LoadSession(context.Background(), r.Session)
		if err != nil {
			s.logger.Error("sake: reloading a shared session", "session", r.Session, "err", err)
			return
		}
		if rec != nil {
			sess.apply(rec)
		}
	case RelayClosed:
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
