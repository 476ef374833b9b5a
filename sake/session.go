package sake

import (
	"crypto/rand"
	"encoding/base64"
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

	mu            sync.Mutex
	subscriptions map[string]struct{}
	inFlight      map[string]func() // request id (raw JSON) -> cancel
	closed        bool
}

func newSession(version string, caps *ClientCapabilities, info *Implementation) *Session {
	s := &Session{id: newSessionID(), version: version, created: time.Now()}
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

// Close ends the session: requests still running are cancelled. The
// transport calls it when the client deletes the session, when it expires,
// or when the connection ends.
func (s *Session) Close() {
	s.mu.Lock()
	cancels := s.inFlight
	s.inFlight = nil
	s.closed = true
	s.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
}

// Closed reports whether Close was called.
func (s *Session) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// track registers a running request so notifications/cancelled can stop it.
func (s *Session) track(id string, cancel func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.inFlight == nil {
		s.inFlight = make(map[string]func())
	}
	s.inFlight[id] = cancel
	return true
}

func (s *Session) untrack(id string) {
	s.mu.Lock()
	delete(s.inFlight, id)
	s.mu.Unlock()
}

func (s *Session) cancel(id string) {
	s.mu.Lock()
	cancel := s.inFlight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
