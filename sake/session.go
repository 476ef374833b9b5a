package sake

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/bridge"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Session is a legacy (2025-11-25 and earlier) session: what initialize
// negotiated, its owner, the log level, resource subscriptions, and the
// requests in flight. The server creates and owns it when it answers
// initialize; a transport names it with every later message
// (Inbound.SessionID over HTTP) or holds it for a connection
// (transport.Conn). What only a transport does with a session (hold it,
// give it a stream, expire it) is in package sake/transport.
type Session struct {
	id           string
	version      string
	capabilities protocol.ClientCapabilities
	clientInfo   protocol.Implementation
	created      time.Time

	initialized atomic.Bool
	logLevel    atomic.Int32 // LogLevel.Severity(); 0 = nothing
	lastUsed    atomic.Int64 // unix nanoseconds

	flight inFlight
	srv    *Server
	owner  string       // Identity.Owner of whoever opened it
	key    string       // what it counts against for quotas
	busy   atomic.Int32 // holds by the transport: not idle
	// offers are the capabilities (resources, prompts, completions)
	// initialize offered: they stay answerable for the session, with
	// empty lists, when their last component is removed.
	offers []string

	mu            sync.Mutex
	subscriptions map[string]struct{}
	send          func(msg []byte) error
	closed        bool
	nextOut       int64
	pending       map[string]chan outgoing
	done          chan struct{}
	onClose       func() // from Hooks.Session
	afterClose    []func()
	// shared says the session lives in the server's session store, and
	// this is one replica's copy of it.
	shared bool
	// streamSave orders the records of whether this replica holds the
	// session's stream (backend.SessionStreamStore).
	streamSave sync.Mutex
}

func newSession(version string, caps *protocol.ClientCapabilities, info *protocol.Implementation) *Session {
	s := &Session{id: newSessionID(), version: version, created: time.Now(), done: make(chan struct{})}
	if caps != nil {
		s.capabilities = *caps
	}
	if info != nil {
		s.clientInfo = *info
	}
	s.touch()
	return s
}

// newSessionID returns 128 random bits in base64url: visible ASCII only.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ID returns the session id, the value of the Mcp-Session-Id header.
func (s *Session) ID() string { return s.id }

// ProtocolVersion returns the negotiated revision.
func (s *Session) ProtocolVersion() string { return s.version }

// ClientCapabilities returns what the client declared at initialize.
func (s *Session) ClientCapabilities() *protocol.ClientCapabilities { return &s.capabilities }

// ClientInfo returns what the client said it is.
func (s *Session) ClientInfo() protocol.Implementation { return s.clientInfo }

// initializedYet reports whether notifications/initialized has arrived.
func (s *Session) initializedYet() bool { return s.initialized.Load() }

// logLevelSet returns the level set with logging/setLevel, or "" if none.
func (s *Session) logLevelSet() LogLevel {
	for _, l := range []LogLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency} {
		if int32(l.Severity()) == s.logLevel.Load() {
			return l
		}
	}
	return ""
}

// lastUsedAt returns when the session last handled a message, for idle
// expiry.
func (s *Session) lastUsedAt() time.Time { return time.Unix(0, s.lastUsed.Load()) }

func (s *Session) touch() { s.lastUsed.Store(time.Now().UnixNano()) }

// subscribed reports whether the client subscribed to uri.
func (s *Session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subscriptions[uri]
	return ok
}

// subscribe adds uri to the session's subscriptions, unless it holds max
// of them already (0: no cap). added says the set grew; ok is false when
// the cap refused uri.
func (s *Session) subscribe(uri string, max int) (added, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, held := s.subscriptions[uri]; held {
		return false, true
	}
	if max > 0 && len(s.subscriptions) >= max {
		return false, false
	}
	if s.subscriptions == nil {
		s.subscriptions = make(map[string]struct{})
	}
	s.subscriptions[uri] = struct{}{}
	return true, true
}

// unsubscribe removes uri from the session's subscriptions and reports
// whether it was there.
func (s *Session) unsubscribe(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, held := s.subscriptions[uri]
	delete(s.subscriptions, uri)
	return held
}

// Close ends the session: requests still running are cancelled and the
// server stops sending it broadcasts. The transport calls it when the
// client deletes the session, when it expires, or when the connection
// ends.
func (s *Session) Close() {
	if s.shared && !s.Closed() {
		ctx := context.Background()
		if err := s.srv.share.store.DeleteSession(ctx, s.id); err != nil {
			s.srv.logger.Error("sake: deleting a shared session", "session", s.id, "err", err)
		}
		s.srv.relay(backend.RelayClosed, s.id, nil)
	}
	s.closeHere()
}

// closeHere ends this replica's copy of the session.
func (s *Session) closeHere() {
	s.mu.Lock()
	var onClose func()
	var after []func()
	if !s.closed {
		close(s.done)
		onClose, s.onClose = s.onClose, nil
		after, s.afterClose = s.afterClose, nil
	}
	s.closed = true
	s.send = nil
	s.mu.Unlock()
	s.flight.cancelAll()
	if s.srv != nil {
		s.srv.forget(s)
	}
	if onClose != nil {
		onClose()
	}
	for _, f := range after {
		f()
	}
}

// afterClosed arranges for f to be called once, when this copy of the
// session ends (see transport.AfterClose).
func (s *Session) afterClosed(f func()) {
	s.mu.Lock()
	if !s.closed {
		s.afterClose = append(s.afterClose, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

// Done returns a channel closed when the session ends.
func (s *Session) Done() <-chan struct{} { return s.done }

// Closed reports whether Close was called.
func (s *Session) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// errNoStream: the session has no stream open for server messages (see
// transport.ErrNoStream).
var errNoStream = bridge.ErrNoStream

// setSender sets where the session's messages that belong to no request
// go (see transport.SetSender); nil removes it. On a shared session whose
// store is a [backend.SessionStreamStore], the store is told (in the background)
// whether this replica now holds the stream.
func (s *Session) setSender(send func(msg []byte) error) {
	s.mu.Lock()
	changed := (s.send == nil) != (send == nil)
	s.send = send
	s.mu.Unlock()
	if changed && s.shared {
		go s.srv.streamChanged(s)
	}
}

// sendMessage delivers a message through the sender, or returns errNoStream
// (see transport.Send). A shared session whose stream is held by another
// replica has the message relayed there.
func (s *Session) sendMessage(msg []byte) error {
	err := s.sendLocal(msg)
	if err == errNoStream && s.shared {
		s.srv.relay(backend.RelaySend, s.id, msg)
		return nil
	}
	return err
}

// sendLocal delivers a message through this replica's sender.
func (s *Session) sendLocal(msg []byte) error {
	s.mu.Lock()
	send := s.send
	s.mu.Unlock()
	if send == nil {
		return errNoStream
	}
	return send(msg)
}

// offer records the component capabilities the server offers the session.
func (s *Session) offer(reg *registry) {
	if reg.offersResources() {
		s.offers = append(s.offers, "resources")
	}
	if reg.offersPrompts() {
		s.offers = append(s.offers, "prompts")
	}
	if reg.offersCompletion() {
		s.offers = append(s.offers, "completions")
	}
}

// offered reports whether initialize offered the session the capability
// what; false for no session.
func (s *Session) offered(what string) bool {
	return s != nil && slices.Contains(s.offers, what)
}
