package sake

import (
	"sync"
	"sync/atomic"
)

// connection is one long-lived connection of a transport (stdio, a
// socket): the value behind transport.Conn. It holds the requests running
// on it and the legacy session its initialize opened. Messages decoded by
// a connection belong to it; its methods are safe for concurrent use.
type connection struct {
	srv       *Server
	transport string
	identity  *Identity
	out       Stream
	flight    inFlight // modern requests; a session tracks its own
	ended     atomic.Bool

	mu      sync.Mutex
	session atomic.Pointer[Session] // written under mu, read without it
	closed  bool
	// inb is what the messages decoded now share: it changes only when
	// an initialize opens a session (a new Inbound; the old one stays as
	// its messages knew it).
	inb atomic.Pointer[Inbound]
}

// connect starts a connection (see transport.Connect).
func (s *Server) connect(transport string, identity *Identity, out Stream) *connection {
	c := &connection{srv: s, transport: transport, identity: identity, out: out}
	c.inb.Store(c.inbound(nil))
	return c
}

// inbound returns what the connection's messages carry in session s.
func (c *connection) inbound(s *Session) *Inbound {
	return &Inbound{Identity: c.identity, Session: s, Stream: c.out, Transport: c.transport, conn: c}
}

// decode decodes one message read on the connection.
func (c *connection) decode(msg []byte) *message {
	m := &message{}
	c.srv.decode(m, msg, c.inb.Load())
	return m
}

// Decode is decode for package transport, which cannot name *message.
func (c *connection) Decode(msg []byte) any { return c.decode(msg) }

// Session returns the connection's legacy session, or nil.
func (c *connection) Session() *Session {
	return c.session.Load()
}

// adopt makes s the connection's session: the messages decoded from now
// on belong to it and its broadcasts go out. An earlier session is
// closed, which cancels its requests.
func (c *connection) adopt(s *Session) {
	c.mu.Lock()
	old, closed := c.session.Load(), c.closed
	if !closed {
		c.session.Store(s)
		c.inb.Store(c.inbound(s))
	}
	c.mu.Unlock()
	if closed {
		s.Close()
		return
	}
	if out := c.out; out != nil {
		s.setSender(func(msg []byte) error { out.Send(msg); return nil })
	}
	if old != nil && old != s {
		old.Close()
	}
}

// EndInput says the client can send nothing more (see
// transport.Conn.EndInput).
func (c *connection) EndInput() {
	c.ended.Store(true)
	c.flight.endInput()
	if s := c.Session(); s != nil {
		s.flight.endInput()
	}
}

// Close ends the connection: every request still running is cancelled
// and the legacy session is closed.
func (c *connection) Close() {
	c.mu.Lock()
	s := c.session.Load()
	c.closed = true
	c.mu.Unlock()
	c.flight.cancelAll()
	if s != nil {
		s.Close()
	}
}
