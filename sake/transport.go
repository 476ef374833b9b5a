package sake

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// This file is everything a transport needs from the server. A transport
// carries bytes: it frames messages, hands each one to the server, and
// writes back what the server sends. It never reads JSON-RPC itself; what
// it must know about a message (is it a request that may run beside others,
// is it long-lived, which session it belongs to) it learns from the
// Message the server decoded.
//
// A transport with one exchange per message (HTTP) calls Handle, or Decode
// then Message.Handle when it must look at the message before running it.
// A transport with a long-lived connection (stdio, a socket) calls Connect
// once and then Conn.Decode for every message it reads:
//
//	conn := srv.Connect("mine", identity, out) // out is the connection's Stream
//	defer conn.Close()
//	for each line read {
//		m := conn.Decode(line)
//		if m.Concurrent() {
//			go func() { write(m.Handle(ctx)) }() // or a worker pool
//		} else {
//			write(m.Handle(ctx)) // before reading the next line
//		}
//	}
//	conn.EndInput() // the client can send nothing more
//
// where write sends Reply.Body when it is not nil and Reply.Cancelled is
// false. The server owns every legacy session: a Conn keeps the one its
// initialize opened; an HTTP transport names it with Inbound.SessionID.
//
// A transport that writes a reply out before it handles the next message
// on the same goroutine can lend the server a buffer for it
// (Message.HandleInto) and allocate no reply body. One that runs requests
// on the goroutine reading its input implements AnswerAwaiter on its
// Stream, so that a request waiting for the client's answer does not
// hold the reading.
//
// A transport that keeps legacy sessions itself (HTTP) finds the one a
// message names with FindSession or SessionFor; one that recovers panics
// of the code it runs in its own goroutines reports them through
// ContextWithPanicHandler. ErrorBody (in package protocol) answers input
// refused before the server sees a message.

// Stream is where the server sends the messages that belong to one
// incoming message before its reply (progress, log messages, a legacy
// session's requests to the client), or, for a Conn, the messages that
// belong to no request. Send must not block for long; it may keep msg.
type Stream interface {
	Send(msg []byte)
}

// StreamFunc adapts a function to a Stream.
type StreamFunc func(msg []byte)

// Send calls f(msg).
func (f StreamFunc) Send(msg []byte) { f(msg) }

// AnswerAwaiter is a Stream told when a request handled on it waits for the
// client's answer to a request the server sent (sampling, elicitation,
// roots). A transport that runs requests on the goroutine reading its
// input hands the reading on to another one then, so the answer can be
// read. AwaitingAnswer is called after the request is sent, on the
// goroutine of the waiting request; it must not block.
type AnswerAwaiter interface {
	Stream
	AwaitingAnswer()
}

// ResumableStream is a Stream that a client can leave and resume (HTTP's
// SSE streams of a legacy session).
type ResumableStream interface {
	Stream
	// CloseStream ends the connection carrying the stream while the
	// request goes on (Context.CloseStream) and reports whether it could.
	CloseStream() bool
	// Abandoned returns a channel closed when nobody can receive the
	// stream any more: the client left and did not resume it in time. A
	// request asking the client on it then gets an error instead of
	// waiting.
	Abandoned() <-chan struct{}
}

// Inbound is what a transport knows about a message besides its bytes.
type Inbound struct {
	// Identity is the caller, from a verified token or the host; nil for
	// an anonymous caller.
	Identity *Identity
	// SessionID is the legacy session the message names (HTTP's
	// Mcp-Session-Id), if any. The server looks it up; a session that is
	// gone or belongs to another owner makes a legacy message fail with
	// Reply.SessionNotFound.
	SessionID string
	// Session is the legacy session the message belongs to, when the
	// transport holds it already (a Conn sets it). Decode sets it from
	// SessionID.
	Session *Session
	// SessionNotFound says the message named a session that does not
	// exist or has ended. Decode sets it from SessionID.
	SessionNotFound bool
	// SessionErr says the session SessionID names could not be looked up
	// right now: the SessionStore failed (the error wraps
	// ErrSessionStore), or this replica had no room for its copy
	// (ErrTooManySessions). The session may be alive, so a legacy
	// message is refused with Reply.Cause set to it, not as
	// SessionNotFound. Decode sets it from SessionID.
	SessionErr error
	// Headers are the MCP headers of an HTTP request; nil for transports
	// without headers (stdio, in memory), where nothing is compared.
	Headers *Headers
	// BaseURL is the endpoint's URL, when known.
	BaseURL string
	// RemoteAddr is the client's network address (HTTP: its IP) when
	// known: anonymous callers' sessions count against it, an IPv6
	// address by its /64 (see Limits.MaxSessionsPerOwner).
	RemoteAddr string
	// Stream receives the messages that belong to this message while it
	// is handled, in order. It may be nil.
	Stream Stream
	// OnPanic, if set, is called when user code panics while handling
	// this message, after the panic has become an error result.
	OnPanic func(recovered any, stack []byte)
	// Transport names the transport for telemetry (Request.Transport):
	// "http", "stdio", "memory", or a custom transport's own name.
	Transport string

	conn *Conn // the connection the message was read on, if any
}

// send hands msg to the message's stream.
func (in *Inbound) send(msg []byte) {
	if in.Stream != nil {
		in.Stream.Send(msg)
	}
}

func (in *Inbound) streams() bool { return in.Stream != nil }

// Headers are the MCP-specific headers of an HTTP request, as received:
// the dispatcher trims them and decodes the base64 sentinel.
type Headers struct {
	ProtocolVersion string // MCP-Protocol-Version
	Method          string // Mcp-Method
	Name            string // Mcp-Name
	HasMethod       bool
	HasName         bool
	// Params maps the lower-cased {Name} of each Mcp-Param-{Name} header
	// to its value.
	Params map[string]string
}

// Reply is the server's answer to one message.
type Reply struct {
	// Body is the JSON-RPC response; nil when the message was a
	// notification or a response, which get none.
	Body []byte
	// ErrorCode is the JSON-RPC error code when Body is an error, else 0.
	ErrorCode int
	// Era is the era the message was classified into.
	Era Era
	// Method is the request's method, when it had one.
	Method string
	// Session is the new legacy session when the message was an
	// initialize the server accepted. The server keeps it; an HTTP
	// transport announces its id.
	Session *Session
	// SessionNotFound says the answer was decided by a legacy message
	// naming a session that is gone.
	SessionNotFound bool
	// Cancelled says the request was cancelled before it completed (by
	// notifications/cancelled, by its context, or because its session
	// ended): the protocol says it gets no response, so a transport that
	// can stay silent drops Body.
	Cancelled bool
	// Auth is set when the request failed authorization: a
	// *protocol.InsufficientScopeError (HTTP answers 403) or a
	// *protocol.InsufficientAuthenticationError (401), which HTTP
	// transports answer with a challenge instead of the body.
	Auth error
	// Busy says the server refused the message for lack of room (too many
	// sessions, too many requests in flight): HTTP answers 503.
	Busy bool
	// Cause says why the server refused the message when the reason lies
	// outside the message: ErrTooManySessions, ErrShuttingDown, or an
	// error wrapping ErrSessionStore; nil otherwise. HTTP answers 503
	// with Retry-After.
	Cause error
	// RetryAfter is how long the client should wait before trying again,
	// when the error said (protocol.RetryData): HTTP sends it as Retry-After, with
	// 429 for CodeRateLimited.
	RetryAfter time.Duration
}

// Message is one incoming message, decoded once. The transport may look at
// it, then calls Handle exactly once.
type Message struct {
	// The server is req.srv, set when the message is decoded.
	in   *Inbound
	msg  []byte
	kind protocol.Kind
	era  Era
	fail *Reply // the answer, when decoding decided it

	paramsErr *decodeError
	fl        *flight // the request's entry in its tracker, if tracked
	flights   *inFlight

	// One allocation holds the message, its request, params, _meta and
	// the handlers' Context.
	env    envelope
	params Params
	meta   RequestMeta
	req    Request
	ctx    Context
}

// Kind returns what the message is.
func (m *Message) Kind() protocol.Kind { return m.kind }

// ID returns the id of a request or a response, as sent.
func (m *Message) ID() json.RawMessage { return m.env.ID }

// Method returns the method of a request or a notification, or "".
func (m *Message) Method() string { return m.env.method }

// Era returns the era the message was classified into.
func (m *Message) Era() Era { return m.era }

// Session returns the legacy session the message belongs to, or nil.
func (m *Message) Session() *Session {
	if m.era == EraLegacy {
		return m.in.Session
	}
	return nil
}

// LongLived reports a request that runs until it is cancelled or the
// server shuts down (subscriptions/listen).
func (m *Message) LongLived() bool {
	return m.kind == protocol.KindRequest && m.fail == nil && m.env.method == "subscriptions/listen"
}

// Concurrent reports a request that may run beside others. Everything else
// (notifications, responses, initialize, batches, messages refused
// already) must be handled in order, before the next message of the same
// connection is decoded: a cancellation takes effect before what follows
// it, and the messages after an initialize belong to its session.
func (m *Message) Concurrent() bool {
	return m.kind == protocol.KindRequest && m.fail == nil && m.env.method != "initialize"
}

// Cancels returns the id of the request a notifications/cancelled names,
// or nil.
func (m *Message) Cancels() json.RawMessage {
	if m.kind == protocol.KindNotification && m.env.method == "notifications/cancelled" {
		return m.params.RequestID
	}
	return nil
}

// Conn is one long-lived connection of a transport (stdio, a socket): the
// requests running on it, and the legacy session its initialize opened.
// Messages decoded by a Conn belong to it; its methods are safe for
// concurrent use.
type Conn struct {
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

// Connect starts a connection. transport names it for telemetry
// (Inbound.Transport); identity is the caller the host vouches for (nil:
// anonymous); out receives the messages of every request and those of the
// connection's legacy session that belong to no request.
func (s *Server) Connect(transport string, identity *Identity, out Stream) *Conn {
	c := &Conn{srv: s, transport: transport, identity: identity, out: out}
	c.inb.Store(c.inbound(nil))
	return c
}

// inbound returns what the connection's messages carry in session s.
func (c *Conn) inbound(s *Session) *Inbound {
	return &Inbound{Identity: c.identity, Session: s, Stream: c.out, Transport: c.transport, conn: c}
}

// Decode decodes one message read on the connection.
func (c *Conn) Decode(msg []byte) *Message {
	m := &Message{}
	c.srv.decode(m, msg, c.inb.Load())
	return m
}

// Session returns the connection's legacy session, or nil.
func (c *Conn) Session() *Session {
	return c.session.Load()
}

// adopt makes s the connection's session: the messages decoded from now
// on belong to it and its broadcasts go out. An earlier session is
// closed, which cancels its requests.
func (c *Conn) adopt(s *Session) {
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
	out := c.out
	s.SetSender(func(msg []byte) error { out.Send(msg); return nil })
	if old != nil && old != s {
		old.Close()
	}
}

// EndInput says the client can send nothing more. The requests that cannot
// finish without it are cancelled: long-lived ones, and those waiting for
// the client's answer to a question; a request that asks later fails at
// once. The others run to completion.
func (c *Conn) EndInput() {
	c.ended.Store(true)
	c.flight.endInput()
	if s := c.Session(); s != nil {
		s.flight.endInput()
	}
}

// Close ends the connection: every request still running is cancelled
// and the legacy session is closed.
func (c *Conn) Close() {
	c.mu.Lock()
	s := c.session.Load()
	c.closed = true
	c.mu.Unlock()
	c.flight.cancelAll()
	if s != nil {
		s.Close()
	}
}

// Decode decodes one message for Message.Handle, with what the transport
// knows about it (nil for nothing). It resolves in.SessionID into
// in.Session, which must not change afterwards.
func (s *Server) Decode(msg []byte, in *Inbound) *Message {
	m := &Message{}
	if in == nil {
		in = &Inbound{}
	}
	s.decode(m, msg, in)
	return m
}

// Handle answers one incoming JSON-RPC message: Decode, then
// Message.Handle. The transport sends back Reply.Body (when not nil)
// after what Inbound.Stream received. It never panics on bad input. ctx
// ends the handling when cancelled.
func (s *Server) Handle(ctx context.Context, msg []byte, in *Inbound) Reply {
	return s.Decode(msg, in).Handle(ctx)
}

// SessionFor returns the live legacy session with that id when who opened
// it, or nil: a session is only ever used by its owner. A session shared
// through a SessionStore that cannot be read right now is nil too; use
// FindSession to tell that apart.
func (s *Server) SessionFor(id string, who *Identity) *Session {
	sess, _ := s.lookupSession(id, who.Owner())
	return sess
}

// FindSession is SessionFor that tells "no such session" from "cannot say
// now": it returns the live legacy session with that id when who opened
// it; nil and no error when there is none (it ended, never existed, or
// belongs to another owner); and an error wrapping ErrSessionStore when
// the SessionStore could not be read, the session maybe still alive.
func (s *Server) FindSession(id string, who *Identity) (*Session, error) {
	return s.lookupSession(id, who.Owner())
}

// ContextWithPanicHandler returns a copy of ctx that carries fn: when user
// code panics while handling a request made with that context (or a task
// such a request starts), the server calls fn with the recovered value and
// the stack, besides logging it and calling Hooks.Panic and
// Inbound.OnPanic. It serves an in-process client that reaches the server
// through a host's HTTP stack (sake/saketest's Handler) and wants the
// panics its calls cause: a transport that hands the request's context on
// delivers it, as sake/plug does; a context does not cross a network.
func ContextWithPanicHandler(ctx context.Context, fn func(recovered any, stack []byte)) context.Context {
	return context.WithValue(ctx, panicKey{}, fn)
}
