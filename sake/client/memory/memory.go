// Package memory connects a client (sake/client) to a server
// (*sake.Server) in the same process: each message goes straight into
// the server's Handle, with no bytes on a wire besides the JSON itself.
// It is the transport of sake/saketest, and of a proxy in front of a
// server of its own program.
//
// It is a package of its own because it joins the two sides: the client
// does not import the server, so a program that only connects to remote
// servers links none of it.
package memory

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

// Option configures an in-memory transport.
type Option func(*endpoint)

// AsIdentity makes every request of the in-memory transport arrive as
// id (a caller with scopes, subject, client id), as a verified token
// would make it over HTTP.
func AsIdentity(id *sake.Identity) Option {
	return func(m *endpoint) { m.identity, m.fixed = func() *sake.Identity { return id }, true }
}

// IdentityFunc computes the identity of each in-memory request.
func IdentityFunc(fn func() *sake.Identity) Option {
	return func(m *endpoint) { m.identity, m.fixed = fn, false }
}

// BaseURL is the endpoint URL the server sees on in-memory requests.
func BaseURL(u string) Option { return func(m *endpoint) { m.baseURL = u } }

// OnPanic is told of a panic in the server's code during an in-memory
// request, after the server made it an error result.
func OnPanic(fn func(recovered any, stack []byte)) Option {
	return func(m *endpoint) { m.onPanic = fn }
}

// Transport connects to srv in the same process.
func Transport(srv *sake.Server, opts ...Option) client.Transport {
	return client.InProcess(Endpoint(srv, opts...))
}

// Endpoint is srv as a client.Endpoint, for a transport that wraps it.
func Endpoint(srv *sake.Server, opts ...Option) client.Endpoint {
	m := &endpoint{srv: srv}
	for _, opt := range opts {
		opt(m)
	}
	return m
}

type endpoint struct {
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

// Open implements client.Endpoint.
func (m *endpoint) Open(incoming func(context.Context, []byte)) error {
	if m.srv == nil {
		return errors.New("client: the in-memory transport needs a server")
	}
	m.incoming = incoming
	return nil
}

// inboundFor is the Inbound of a call whose messages must come with its
// context (a forwarded call's questions and log messages), else the
// shared one.
func (m *endpoint) inboundFor(ctx context.Context, forwarded bool) *sake.Inbound {
	if !forwarded {
		return m.inbound()
	}
	in := *m.inbound()
	in.Stream = transport.StreamFunc(func(b []byte) { m.incoming(ctx, b) })
	return &in
}

func (m *endpoint) inbound() *sake.Inbound {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.in != nil && m.in.Session == m.session && (m.identity == nil || m.fixed) {
		return m.in
	}
	in := &sake.Inbound{Session: m.session, Stream: transport.StreamFunc(func(b []byte) { m.incoming(nil, b) }), BaseURL: m.baseURL, OnPanic: m.onPanic, Transport: "memory"}
	if m.identity != nil {
		in.Identity = m.identity()
	}
	m.in = in
	return in
}

// Exchange implements client.Endpoint.
func (m *endpoint) Exchange(ctx context.Context, msg client.Outgoing) ([]byte, error) {
	m.mu.Lock()
	closed, sess := m.closed, m.session
	m.mu.Unlock()
	if closed {
		return nil, client.ErrClosed
	}
	switch {
	case msg.Raw:
		return m.srv.Handle(ctx, msg.Body, m.inbound()).Body, nil
	case msg.ID == 0:
		// A notification, or an answer to the server's request.
		reply := m.srv.Handle(ctx, msg.Body, m.inbound())
		if reply.Body != nil && reply.ErrorCode != 0 {
			return reply.Body, nil
		}
		return nil, nil
	}
	if sess != nil && sess.Closed() && !msg.Initialize {
		return nil, client.ErrSessionGone
	}
	if msg.Era == sake.EraLegacy && ctx.Done() != nil {
		// A session's request is cancelled by notifications/cancelled,
		// not by its context: the server answers, nobody listens. (No
		// goroutine waits for that: the context runs the function when it
		// ends.)
		id := msg.ID
		stop := context.AfterFunc(ctx, func() {
			m.srv.Handle(context.Background(), cancelled(id), m.inbound())
		})
		defer stop()
		reply := m.srv.Handle(context.WithoutCancel(ctx), msg.Body, m.inboundFor(ctx, msg.Forwarded))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return m.finish(msg.Method, reply)
	}
	// A 2026-07-28 request's log messages and progress come on its own
	// stream: a forwarded call's go to its caller.
	reply := m.srv.Handle(ctx, msg.Body, m.inboundFor(ctx, msg.Forwarded))
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return m.finish(msg.Method, reply)
}

// cancelled is the notification that cancels request id.
func cancelled(id int64) []byte {
	b := protocol.AppendNotificationHead(nil, "notifications/cancelled")
	b = append(b, `{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, `,"reason":"the caller cancelled the call"}}`...)
}

func (m *endpoint) finish(method string, reply sake.Reply) ([]byte, error) {
	if reply.Session != nil {
		transport.SetSender(reply.Session, func(b []byte) error { m.incoming(nil, b); return nil })
		m.mu.Lock()
		old := m.session
		m.session = reply.Session
		m.mu.Unlock()
		if old != nil && old != reply.Session {
			old.Close()
		}
	}
	if reply.SessionNotFound {
		return nil, client.ErrSessionGone
	}
	if reply.Body == nil {
		return nil, errors.New("client: the server sent no response to " + method)
	}
	return reply.Body, nil
}

// Close implements client.Endpoint.
func (m *endpoint) Close() error {
	m.mu.Lock()
	sess := m.session
	m.closed = true
	m.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	return nil
}

// SessionID implements client.Endpoint.
func (m *endpoint) SessionID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.session == nil {
		return ""
	}
	return m.session.ID()
}
