package sake

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Request is one JSON-RPC request as the dispatcher decoded it, what
// middleware and handlers see.
type Request struct {
	// ID is the request id exactly as the client sent it.
	ID json.RawMessage
	// Method is the JSON-RPC method.
	Method string
	// Params are the decoded params; never nil.
	Params *Params
	// Era is the protocol era the request was classified into.
	Era Era
	// singleUse says the tool's requestStates are redeemable once; it
	// sits beside Era, which leaves room for it.
	singleUse bool
	// ProtocolVersion is the revision the request speaks: its _meta
	// version in the modern era, the session's negotiated one in the legacy
	// era.
	ProtocolVersion string
	// ClientCapabilities are the capabilities in force for this request:
	// from _meta (modern) or from initialize (legacy). Never nil.
	ClientCapabilities *protocol.ClientCapabilities
	// Identity is the caller, nil when anonymous.
	Identity *Identity
	// Session is the legacy session, nil in the modern era.
	Session *Session
	// BaseURL is the endpoint's URL when the transport knows it.
	BaseURL string
	// Message is the raw message; do not modify or retain it.
	Message []byte

	in         *Inbound
	srv        *Server
	fl         *flight // the request's entry in its tracker, if any
	newSession *Session
	clientInfo *protocol.Implementation
	ctx        *Context  // preallocated for the first Context of the request
	replyBuf   *[]byte   // where the result is encoded, lent by the transport (HandleInto)
	dfr        *deferral // set when the reply may come later (deferred.go)
}

// ClientInfo returns what the client said it is, or nil if it said
// nothing: from _meta in the modern era, from initialize in the legacy one.
// It is self-reported; never base a security decision on it.
func (r *Request) ClientInfo() *protocol.Implementation {
	if r.clientInfo == nil && r.Era == EraModern {
		r.clientInfo = r.Params.Meta.info()
	}
	return r.clientInfo
}

// Server returns the server handling the request, for middleware that
// needs more of it than the request says (sake/middleware's cache
// watches its broadcasts). Nil for a Request the server did not make.
func (r *Request) Server() *Server { return r.srv }

// Handler handles one request and returns its result, or an error that
// becomes a JSON-RPC error (a *Error keeps its code; anything else is
// -32603).
type Handler func(ctx context.Context, req *Request) (any, error)

// Middleware wraps the handling of every request, the way HTTP middleware
// wraps a handler: it may read the request, call next, look at or replace
// the result, or return an error without calling next.
type Middleware func(next Handler) Handler

// Context is what a tool, resource, prompt or completion handler receives:
// a context.Context that ends when the request is cancelled, plus the
// request's identity and the means to report progress and log to the
// client.
type Context struct {
	context.Context
	req *Request
	srv *Server
	rnd *round // modern multi-round state, nil until used

	task      *taskRun     // set while the call runs as a task
	startTask func() error // escalates a TaskStartedByCode call

	// self is the Context as a context.Context, for a reflective call of
	// a function whose parameter has that interface type: a reflect.Value
	// of the interface type itself is passed without the implements check
	// a concrete *Context would cost at every call.
	self context.Context
}

// Request returns the request being handled.
func (c *Context) Request() *Request { return c.req }

// Identity returns the caller, nil when anonymous.
func (c *Context) Identity() *Identity { return c.req.Identity }

// Principal returns the caller's principal (Identity().Principal), or nil.
func (c *Context) Principal() any {
	if c.req.Identity == nil {
		return nil
	}
	return c.req.Identity.Principal
}

// Session returns the legacy session, or nil in the modern era.
func (c *Context) Session() *Session { return c.req.Session }

// ClientCapabilities returns what the client declared for this request.
func (c *Context) ClientCapabilities() *protocol.ClientCapabilities { return c.req.ClientCapabilities }

// ProgressToken returns the request's progress token as sent (a JSON
// string or number), or nil when the client asked for no progress.
func (c *Context) ProgressToken() json.RawMessage {
	if m := c.req.Params.Meta; m != nil {
		return m.ProgressToken
	}
	return nil
}

// Progress reports progress to the client when the request asked for it
// (with a progress token); otherwise it does nothing. In a call that runs
// as a task it sets the task's status message instead, and returns the
// task manager's refusal: a -32602 *Error for a message that is not valid
// UTF-8 or holds a NUL (the status message stays as it was), or the
// store's error. progress should increase with every call; total is 0
// when unknown. Outside a task it returns nil.
func (c *Context) Progress(progress, total float64, message string) error {
	if c.task != nil {
		// A task reports through its status message, which tasks/get shows.
		if message == "" {
			message = strconv.FormatFloat(progress, 'f', -1, 64)
			if total > 0 {
				message += " of " + strconv.FormatFloat(total, 'f', -1, 64)
			}
		}
		return c.task.ctl.Progress(message)
	}
	p := c.req.Params
	if p.Meta == nil || len(p.Meta.ProgressToken) == 0 || c.req.in == nil || !c.req.in.streams() {
		return nil
	}
	b := make([]byte, 0, 128)
	b = protocol.AppendNotificationHead(b, "notifications/progress")
	b = append(b, `{"progressToken":`...)
	b = append(b, p.Meta.ProgressToken...)
	b = append(b, `,"progress":`...)
	b, _ = protocol.AppendAny(b, progress)
	if total > 0 {
		b = append(b, `,"total":`...)
		b, _ = protocol.AppendAny(b, total)
	}
	if message != "" {
		b = append(b, `,"message":`...)
		b = protocol.AppendString(b, message)
	}
	b = append(b, "}}"...)
	c.notify(b)
	return nil
}

// Log sends a notifications/message to the client when the request's log
// level lets it through: in the modern era only if the request set
// _meta["io.modelcontextprotocol/logLevel"], in the legacy era at or above
// the level the session set with logging/setLevel. data is any JSON value;
// logger may be empty.
func (c *Context) Log(level LogLevel, logger string, data any) {
	if !c.logEnabled(level) {
		return
	}
	b, ok := c.srv.logMessage(level, logger, data)
	if !ok {
		return
	}
	c.notify(b)
}

// LogLevel returns the least severe level the client asked to receive
// for this request: the modern request's
// _meta["io.modelcontextprotocol/logLevel"], or the level the legacy
// session set with logging/setLevel. It is "" when the client asked for no
// log messages. A proxy forwards it to the server it calls.
func (c *Context) LogLevel() LogLevel {
	switch c.minLogLevel() {
	case 1:
		return LevelDebug
	case 2:
		return LevelInfo
	case 3:
		return LevelNotice
	case 4:
		return LevelWarning
	case 5:
		return LevelError
	case 6:
		return LevelCritical
	case 7:
		return LevelAlert
	case 8:
		return LevelEmergency
	}
	return ""
}

func (c *Context) logEnabled(level LogLevel) bool {
	min := c.minLogLevel()
	return min != 0 && level.Severity() >= min
}

// minLogLevel returns the least severity the client wants, 0 for none.
func (c *Context) minLogLevel() int {
	switch c.req.Era {
	case EraModern:
		if m := c.req.Params.Meta; m != nil && m.LogLevel != nil {
			return m.LogLevel.Severity()
		}
		return 0
	case EraLegacy:
		if s := c.req.Session; s != nil {
			return int(s.logLevel.Load())
		}
	}
	return 0
}

func (c *Context) notify(msg []byte) {
	if c.req.in != nil && c.Context.Err() == nil {
		c.req.in.send(msg)
	}
}

// CloseStream ends the connection of the request's stream while the call
// goes on, and reports whether it could: a legacy request over Streamable
// HTTP in a session (HTTP/1.x) switches to SSE with a priming event and a
// retry interval, then closes; the client reconnects with Last-Event-ID
// and receives what the call sends after, including its result. It lets a
// long call outlive proxies that cut long responses. Elsewhere (modern
// requests, stdio, the test client) it does nothing and returns false.
func (c *Context) CloseStream() bool {
	if c.task != nil || c.req.in == nil {
		return false
	}
	if rs, ok := c.req.in.Stream.(resumableStream); ok {
		return rs.CloseStream()
	}
	return false
}

// Slog returns a *slog.Logger whose records go to the client as
// notifications/message (subject to the client's log level) and nowhere else.
func (c *Context) Slog() *slog.Logger { return slog.New(&clientLogHandler{c: c}) }

// NotifyListChanged is Server.NotifyListChanged made by this request: the
// broadcast carries the request's context as its Origin.
func (c *Context) NotifyListChanged(list List) {
	c.srv.broadcast(Broadcast{List: list, Origin: c.Context})
}

// ResourceUpdated is Server.ResourceUpdated made by this request: the
// broadcast carries the request's context as its Origin.
func (c *Context) ResourceUpdated(uri string) {
	c.srv.broadcast(Broadcast{URI: uri, Origin: c.Context})
}

// Server returns the server handling the request, for tools that change
// it (add or remove components, announce resource updates).
func (c *Context) Server() *Server { return c.srv }

// Require checks a requirement against the caller, for code that decides
// what it needs while it runs (for example, a scope per record). It
// returns *protocol.InsufficientScopeError or *protocol.InsufficientAuthenticationError;
// return that error and the client is asked to authorize again.
func (c *Context) Require(r Requirement) error {
	return r.check(c.req.Identity, c.srv.now, hostTrusted(c.req.in))
}
