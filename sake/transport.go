package sake

import (
	"context"
	"time"
)

// This file is the part of the transport surface a tool or middleware
// author meets too: Stream, Inbound, Headers, Reply and Server.Handle.
// A transport carries bytes: it frames messages, hands each one to the
// server, and writes back what the server sends; it never reads JSON-RPC
// itself. The simplest one calls Handle per message and writes back
// Reply.Body when it is not nil and Reply.Cancelled is false.
//
// Everything else a transport needs lives in package sake/transport:
// decoding a message to look at it before running it (transport.Decode
// and transport.Message), long-lived connections (transport.Connect and
// transport.Conn), finding and holding legacy sessions, the stream
// interfaces the server looks for (transport.AnswerAwaiter,
// transport.ResumableStream), and panic reports carried by a context
// (transport.WithPanicHandler). It reaches the server through
// sake/internal/bridge, filled in bridge.go.

// Stream is where the server sends the messages that belong to one
// incoming message before its reply (progress, log messages, a legacy
// session's requests to the client), or, for a transport.Conn, the
// messages that belong to no request. Send must not block for long; it
// may keep msg. transport.StreamFunc adapts a function to a Stream.
type Stream interface {
	Send(msg []byte)
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
	// transport holds it already (a transport.Conn sets it). Decoding
	// sets it from SessionID.
	Session *Session
	// SessionNotFound says the message named a session that does not
	// exist or has ended. Decoding sets it from SessionID.
	SessionNotFound bool
	// SessionErr says the session SessionID names could not be looked up
	// right now: the SessionStore failed (the error wraps
	// ErrSessionStore), or this replica had no room for its copy
	// (ErrTooManySessions). The session may be alive, so a legacy
	// message is refused with Reply.Cause set to it, not as
	// SessionNotFound. Decoding sets it from SessionID.
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

	conn *connection // the connection the message was read on, if any
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

	// deferred says the reply comes later (see deferral): set only
	// between the handler and Handle, which returns no body for it.
	deferred bool
}

// Handle answers one incoming JSON-RPC message. The transport sends back
// Reply.Body (when not nil) after what Inbound.Stream received. It never
// panics on bad input. ctx ends the handling when cancelled. Handle
// resolves in.SessionID into in.Session (in may be nil), which must not
// change afterwards.
func (s *Server) Handle(ctx context.Context, msg []byte, in *Inbound) Reply {
	return s.decodeNew(msg, in).Handle(ctx)
}

// answerAwaiter and resumableStream are the method sets of
// transport.AnswerAwaiter and transport.ResumableStream, which the server
// looks for on a Stream.
type (
	answerAwaiter interface {
		Stream
		AwaitingAnswer()
	}
	resumableStream interface {
		Stream
		CloseStream() bool
		Abandoned() <-chan struct{}
	}
)
