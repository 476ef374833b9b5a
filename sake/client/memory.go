package client

import (
	"context"
	"errors"
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// MemoryOption configures an in-memory transport.
type MemoryOption func(*memoryTransport)

// AsIdentity makes every request of the in-memory transport arrive as
// id (a caller with scopes, subject, client id), as a verified token
// would make it over HTTP.
func AsIdentity(id *sake.Identity) MemoryOption {
	return func(m *memoryTransport) { m.identity, m.fixed = func() *sake.Identity { return id }, true }
}

// IdentityFunc computes the identity of each in-memory request.
func IdentityFunc(fn func() *sake.Identity) MemoryOption {
	return func(m *memoryTransport) { m.identity, m.fixed = fn, false }
}

// MemoryBaseURL is the endpoint URL the server sees on in-memory requests.
func MemoryBaseURL(u string) MemoryOption { return func(m *memoryTransport) { m.baseURL = u } }

// OnPanic is told of a panic in the server's code during an in-memory
// request, after the server made it an error result.
func OnPanic(fn func(recovered any, stack []byte)) MemoryOption {
	return func(m *memoryTransport) { m.onPanic = fn }
}

// Memory connects to srv in the same process: each message goes straight
// into srv.Handle, with no bytes on a wire besides the JSON itself.
func Memory(srv *sake.Server, opts ...MemoryOption) Transport {
	m := &memoryTransport{srv: srv}
	for _, opt := range opts {
		opt(m)
	}
	return m
}

type memoryTransport struct {
	srv      *sake.Server
	identity func() *sake.Identity
	fixed    bool // identity always returns the same caller
	baseURL  string
	onPanic  func(any, []byte)
	incoming func(context.Context, []byte)

	mu      sync.Mutex
	session *sake.Session
	in      *sake.Inbound // reused while the session stays the same and the identity is fixed
	closed  bool
}

func (m *memoryTransport) bind(_ context.Context, incoming func(context.Context, []byte), _ *options) error {
	if m.srv == nil {
		return errors.New("client: Memory needs a server")
	}
	m.incoming = incoming
	return nil
}

// inboundFor is the Inbound of a call whose messages must come with its
// context (a forwarded call's questions and log messages), else the
// shared one.
func (m *memoryTransport) inboundFor(ctx context.Context) *sake.Inbound {
	if ctx.Value(callerKey{}) == nil {
		return m.inbound()
	}
	in := *m.inbound()
	in.Stream = sake.StreamFunc(func(b []byte) { m.incoming(ctx, b) })
	return &in
}

func (m *memoryTransport) inbound() *sake.Inbound {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.in != nil && m.in.Session == m.session && (m.identity == nil || m.fixed) {
		return m.in
	}
	in := &sake.Inbound{Session: m.session, Stream: sake.StreamFunc(func(b []byte) { m.incoming(nil, b) }), BaseURL: m.baseURL, OnPanic: m.onPanic, Transport: "memory"}
	if m.identity != nil {
		in.Identity = m.identity()
	}
	m.in = in
	return in
}

func (m *memoryTransport) roundTrip(ctx context.Context, msg *message) ([]byte, error) {
	m.mu.Lock()
	closed, sess := m.closed, m.session
	m.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if sess != nil && sess.Closed() && !msg.handshake {
		return nil, errSessionGone
	}
	if msg.era == sake.EraLegacy && ctx.Done() != nil {
		// A session's request is cancelled by notifications/cancelled,
		// not by its context: the server answers, nobody listens. (No
		// goroutine waits for that: the context runs the function when it
		// ends.)
		stop := context.AfterFunc(ctx, func() {
			_ = m.send(context.Background(), &message{body: cancelled(msg.id, "the caller cancelled the call"), era: msg.era})
		})
		defer stop()
		reply := m.srv.Handle(context.WithoutCancel(ctx), msg.body, m.inboundFor(ctx))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return m.finish(msg, reply)
	}
	// A 2026-07-28 request's log messages and progress come on its own
	// stream: a forwarded call's go to its caller.
	reply := m.srv.Handle(ctx, msg.body, m.inboundFor(ctx))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return m.finish(msg, reply)
}

func (m *memoryTransport) finish(msg *message, reply sake.Reply) ([]byte, error) {
	if reply.Session != nil {
		reply.Session.SetSender(func(b []byte) error { m.incoming(nil, b); return nil })
		m.mu.Lock()
		old := m.session
		m.session = reply.Session
		m.mu.Unlock()
		if old != nil && old != reply.Session {
			old.Close()
		}
	}
	if reply.SessionNotFound {
		return nil, errSessionGone
	}
	if reply.Body == nil {
		return nil, errors.New("client: the server sent no response to " + msg.method)
	}
	return reply.Body, nil
}

func (m *memoryTransport) send(ctx context.Context, msg *message) error {
	reply := m.srv.Handle(ctx, msg.body, m.inbound())
	if reply.Body != nil && reply.ErrorCode != 0 {
		_, err := decodeResponse(reply.Body)
		return err
	}
	return nil
}

func (m *memoryTransport) established(sake.Era, string) {}

func (m *memoryTransport) ready(context.Context) error { return nil }

func (m *memoryTransport) close() error {
	m.mu.Lock()
	sess := m.session
	m.closed = true
	m.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	return nil
}

func (m *memoryTransport) sessionID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.session == nil {
		return ""
	}
	return m.session.ID()
}
