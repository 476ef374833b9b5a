package sake

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Session is a legacy (2025-11-25 and earlier) session: what initialize
// negotiated, the log level, resource subscriptions, and the requests in
// flight. The dispatcher creates one when it answers initialize; the
// transport keeps it (an HTTP handler by its Mcp-Session-Id, stdio for the
// life of the process) and passes it back with every later message.
type Session struct {
	id           string
	version      string
	capabilities ClientCapabilities
	clientInfo   Implementation
	created      time.Time

	initialized atomic.Bool
	logLevel    atomic.Int32 // LogLevel.severity(); 0 = nothing
	lastUsed    atomic.Int64 // unix nanoseconds

	flight InFlight
	srv    *Server

	mu            sync.Mutex
	subscriptions map[string]struct{}
	send          func(msg []byte) error
	closed        bool
	nextOut       int64
	pending       map[string]chan outgoing
	done          chan struct{}
	onClose       func() // from Hooks.Session
}

func newSession(version string, caps *ClientCapabilities, info *Implementation) *Session {
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
func (s *Session) ClientCapabilities() *ClientCapabilities { return &s.capabilities }

// ClientInfo returns what the client said it is.
func (s *Session) ClientInfo() Implementation { return s.clientInfo }

// Initialized reports whether notifications/initialized has arrived.
func (s *Session) Initialized() bool { return s.initialized.Load() }

// LogLevel returns the level set with logging/setLevel, or "" if none.
func (s *Session) LogLevel() LogLevel {
	for _, l := range []LogLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency} {
		if int32(l.severity()) == s.logLevel.Load() {
			return l
		}
	}
	return ""
}

// LastUsed returns when the session last handled a message, for idle
// expiry.
func (s *Session) LastUsed() time.Time { return time.Unix(0, s.lastUsed.Load()) }

func (s *Session) touch() { s.lastUsed.Store(time.Now().UnixNano()) }

// Subscribed reports whether the client subscribed to uri.
func (s *Session) Subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.subscriptions[uri]
	return ok
}

func (s *Session) subscribe(uri string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		if s.subscriptions == nil {
			s.subscriptions = make(map[string]struct{})
		}
		s.subscriptions[uri] = struct{}{}
	} else {
		delete(s.subscriptions, uri)
	}
}

// Close ends the session: requests still running are cancelled and the
// server stops sending it broadcasts. The transport calls it when the
// client deletes the session, when it expires, or when the connection
// ends.
func (s *Session) Close() {
	s.mu.Lock()
	var onClose func()
	if !s.closed {
		close(s.done)
		onClose, s.onClose = s.onClose, nil
	}
	s.closed = true
	s.send = nil
	s.mu.Unlock()
	s.flight.CancelAll()
	if s.srv != nil {
		s.srv.sessions.Delete(s.id)
	}
	if onClose != nil {
		onClose()
	}
}

// Done returns a channel closed when the session ends, for transports
// holding a stream open for it.
func (s *Session) Done() <-chan struct{} { return s.done }

// Closed reports whether Close was called.
func (s *Session) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// ErrNoStream is returned by Session.Send when the client has no stream
// open to receive messages outside a request.
var ErrNoStream = errors.New("sake: the session has no stream open for server messages")

// SetSender sets where the session's messages that belong to no request
// go (list changes, resource updates; later, server-initiated requests):
// over HTTP the standalone GET stream, over stdio the output. nil removes
// it.
func (s *Session) SetSender(send func(msg []byte) error) {
	s.mu.Lock()
	s.send = send
	s.mu.Unlock()
}

// Send delivers a message through the sender, or returns ErrNoStream.
func (s *Session) Send(msg []byte) error {
	s.mu.Lock()
	send := s.send
	s.mu.Unlock()
	if send == nil {
		return ErrNoStream
	}
	return send(msg)
}

// InFlight tracks the requests running on one connection, so that
// notifications/cancelled can stop them. A legacy session has its own;
// a transport with a connection but no session (stdio in the modern era)
// passes one in Inbound. The zero value is ready to use.
type InFlight struct {
	mu     sync.Mutex
	m      map[string]*flight
	closed bool
}

// flight is one tracked request; its identity lets a request untrack only
// itself when a client reuses an id.
type flight struct{ cancel func() }

func (f *InFlight) track(id string, cancel func()) *flight {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	if f.m == nil {
		f.m = make(map[string]*flight)
	}
	e := &flight{cancel: cancel}
	f.m[id] = e
	return e
}

func (f *InFlight) untrack(id string, e *flight) {
	f.mu.Lock()
	if f.m[id] == e {
		delete(f.m, id)
	}
	f.mu.Unlock()
}

// Cancel cancels the running request with that id (its JSON text) and
// reports whether there was one.
func (f *InFlight) Cancel(id string) bool {
	f.mu.Lock()
	e := f.m[id]
	f.mu.Unlock()
	if e != nil {
		e.cancel()
	}
	return e != nil
}

// CancelAll cancels every running request and refuses new ones: the
// connection is over.
func (f *InFlight) CancelAll() {
	f.mu.Lock()
	m := f.m
	f.m = nil
	f.closed = true
	f.mu.Unlock()
	for _, e := range m {
		e.cancel()
	}
}
