package sake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Inbound is what a transport knows about a message besides its bytes.
type Inbound struct {
	// Identity is the caller, from a verified token or the host; nil for
	// an anonymous caller.
	Identity *Identity
	// Session is the legacy session the message belongs to, if any.
	Session *Session
	// SessionNotFound says the message named a session (Mcp-Session-Id)
	// that does not exist or has ended.
	SessionNotFound bool
	// Headers are the MCP headers of an HTTP request; nil for transports
	// without headers (stdio, in memory), where nothing is compared.
	Headers *Headers
	// BaseURL is the endpoint's URL, when known.
	BaseURL string
	// Notify receives the notifications that belong to this request
	// (progress, log messages), in order, while it runs. It may be nil.
	Notify func(msg []byte)
	// OnPanic, if set, is called when user code panics while handling
	// this message, after the panic has become an error result.
	OnPanic func(recovered any, stack []byte)
	// CloseStream, if set, ends the connection of the request's
	// resumable stream mid-call (SSE polling): the client reconnects with
	// Last-Event-ID and receives the rest. It reports whether it did.
	CloseStream func() bool
	// Classified, if set, is called with the message's era once the
	// dispatcher has classified it, before any notification: a transport
	// whose framing or cancellation depends on the era decides there.
	Classified func(Era)
	// Transport names the transport for telemetry (Request.Transport):
	// "http", "stdio", "memory", or a custom transport's own name.
	Transport string
	// InFlight tracks the connection's running requests for
	// notifications/cancelled when there is no session (stdio in the
	// modern era). Legacy sessions track their own.
	InFlight *InFlight
}

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

// Reply is the dispatcher's answer to one message.
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
	// initialize the server accepted; the transport keeps it.
	Session *Session
	// SessionNotFound echoes Inbound.SessionNotFound when it decided the
	// answer (a legacy message for a session that is gone).
	SessionNotFound bool
	// Auth is set when the request failed authorization: HTTP transports
	// answer with its status and challenge instead of the body.
	Auth *AuthFailure
}

// Handle answers one incoming JSON-RPC message. It is the only entry point
// into the server: every transport and the test client call it with the
// message's bytes and what they know about it, and send back Reply.Body
// (when not nil) after the notifications Inbound.Notify received. It never
// panics on bad input. ctx ends the handling when cancelled.
func (s *Server) Handle(ctx context.Context, msg []byte, in *Inbound) Reply {
	if in == nil {
		in = &Inbound{}
	}
	if batchAllowed(in) && isArray(msg) {
		return s.handleBatch(ctx, msg, in)
	}
	// One allocation holds the request, its params, their _meta and the
	// handlers' Context.
	b := &exchange{}
	env := &b.env
	paramsErr := decodeMessage(msg, env, &b.params, &b.meta)
	if paramsErr != nil && paramsErr.code != CodeInvalidParams {
		return s.errorReply(idOrNull(env.ID), EraUnknown, &Error{Code: paramsErr.code, Message: paramsErr.message})
	}
	if env.JSONRPC != "2.0" {
		return s.errorReply(idOrNull(env.ID), EraUnknown, &Error{Code: CodeInvalidRequest, Message: `Invalid request: "jsonrpc" must be "2.0"`})
	}
	if env.Method == nil {
		if env.ID != nil && (env.Result != nil || env.Error != nil) {
			// An answer to a server-initiated request.
			if in.Session != nil {
				in.Session.deliver(env.ID, env.Result, env.Error)
			}
			return Reply{Era: EraLegacy}
		}
		return s.errorReply(idOrNull(env.ID), EraUnknown, &Error{Code: CodeInvalidRequest, Message: "Invalid request: a request needs a method"})
	}
	if env.ID != nil && !validID(env.ID) {
		return s.errorReply(nil, EraUnknown, &Error{Code: CodeInvalidRequest, Message: "Invalid request: the id must be a string or a number of at most " + strconv.Itoa(MaxIDBytes) + " bytes"})
	}
	p := env.Params
	if p == nil {
		p = &b.params
	}
	method := *env.Method
	era := classify(method, p, in)
	if in.Classified != nil {
		in.Classified(era)
	}
	req := &b.req
	*req = Request{ID: env.ID, Method: method, Params: p, Era: era, Identity: in.Identity,
		BaseURL: in.BaseURL, Message: msg, in: in, ctx: &b.ctx}
	if h := s.opts.hooks; h != nil && h.Request != nil {
		return s.observed(ctx, req, paramsErr, h)
	}
	return s.handleRequest(ctx, req, paramsErr, nil)
}

// observed handles a request between the Request hook's start and done.
func (s *Server) observed(ctx context.Context, req *Request, paramsErr *decodeError, h *Hooks) Reply {
	hctx, done := h.Request(ctx, req)
	if hctx != nil {
		ctx = hctx
	}
	if done == nil {
		return s.handleRequest(ctx, req, paramsErr, nil)
	}
	var out RequestDone
	reply := s.handleRequest(ctx, req, paramsErr, &out)
	out.Reply = &reply
	if out.Error == nil && reply.ErrorCode != 0 {
		out.Error = &Error{Code: reply.ErrorCode}
	}
	done(out)
	return reply
}

// handleRequest answers a decoded request or notification. out, when not
// nil, receives the result or error for the Request hook.
func (s *Server) handleRequest(ctx context.Context, req *Request, paramsErr *decodeError, out *RequestDone) Reply {
	in, method, era := req.in, req.Method, req.Era
	if req.ID == nil {
		s.notification(method, req.Params, in, era)
		return Reply{Era: era, Method: method}
	}
	if paramsErr != nil {
		e := InvalidParams("%s", paramsErr.message)
		if out != nil {
			out.Error = e
		}
		r := s.errorReply(req.ID, era, e)
		r.Method = method
		return r
	}
	if err := s.prepare(req, in); err != nil {
		if out != nil {
			out.Error, _ = err.(*Error)
		}
		r := s.errorReply(req.ID, era, err)
		r.Method, r.SessionNotFound = method, in.SessionNotFound && era == EraLegacy && req.Session == nil
		return r
	}
	if f := flightOf(req.Session, in); f != nil && method != "initialize" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		key := string(req.ID)
		if e := f.track(key, cancel); e != nil {
			defer f.untrack(key, e)
		}
		defer cancel()
	}
	res, err := s.handler(ctx, req)
	var reply Reply
	var answered *Error
	if err == nil {
		reply = s.resultReply(req, res)
		if out != nil && reply.ErrorCode == 0 {
			out.observeResult(res)
		}
	} else if ae, af, ok := authError(err); ok {
		answered = ae
		reply = s.errorReply(req.ID, era, ae)
		reply.Auth = af
	} else {
		var e *Error
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			// The client went away or cancelled: nobody reads this answer.
			e = &Error{Code: CodeInternalError, Message: "Request cancelled"}
		} else if !errors.As(err, &e) {
			s.logger.ErrorContext(ctx, "sake: request failed", "method", method, "err", err)
			e = &Error{Code: CodeInternalError, Message: "Internal error"}
		}
		answered = e
		reply = s.errorReply(req.ID, era, e)
	}
	if out != nil && answered != nil {
		out.Error = answered
	}
	reply.Method, reply.Session = method, req.newSession
	return reply
}

// exchange is everything one request needs, allocated at once.
type exchange struct {
	env    envelope
	params Params
	meta   RequestMeta
	req    Request
	ctx    Context
}

// classify decides the era of a message from what is already decoded.
func classify(method string, p *Params, in *Inbound) Era {
	if m := p.Meta; m != nil && (m.ProtocolVersion != nil || m.ClientCapabilities != nil) {
		return EraModern
	}
	if h := in.Headers; h != nil && h.ProtocolVersion != "" && !isLegacyVersion(strings.TrimSpace(h.ProtocolVersion)) && method != "initialize" && in.Session == nil {
		return EraModern
	}
	return EraLegacy
}

// prepare validates a request for its era and fills in what the era says
// about its version, capabilities and session.
func (s *Server) prepare(req *Request, in *Inbound) error {
	p := req.Params
	if req.Era == EraModern {
		return s.prepareModern(req, in)
	}
	if req.Method == "initialize" {
		req.ClientCapabilities = p.Capabilities
		if req.ClientCapabilities == nil {
			req.ClientCapabilities = &ClientCapabilities{}
		}
		req.clientInfo = p.ClientInfo
		req.ProtocolVersion = p.ProtocolVersion
		return nil
	}
	if sess := in.Session; sess != nil {
		sess.touch()
		req.Session = sess
		req.ProtocolVersion = sess.version
		req.ClientCapabilities = &sess.capabilities
		req.clientInfo = &sess.clientInfo
		return nil
	}
	if in.SessionNotFound {
		return &Error{Code: CodeInvalidRequest, Message: "Session not found: it ended or never existed; send initialize to start a new one"}
	}
	// A legacy request without a session: served statelessly at the
	// version its header names, or 2025-03-26 as the protocol says.
	req.ProtocolVersion = "2025-03-26"
	if h := in.Headers; h != nil && h.ProtocolVersion != "" {
		req.ProtocolVersion = strings.TrimSpace(h.ProtocolVersion)
	}
	req.ClientCapabilities = &ClientCapabilities{}
	return nil
}

// prepareModern applies the 2026-07-28 checks, in the order the protocol's
// conformance suite expects: the version header, the required _meta, the
// header against the body, the version, then the other headers.
func (s *Server) prepareModern(req *Request, in *Inbound) error {
	h := in.Headers
	if h != nil && h.ProtocolVersion == "" {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: the MCP-Protocol-Version header is required"}
	}
	m := req.Params.Meta
	if m == nil || m.ProtocolVersion == nil {
		return InvalidParams(`Invalid params: _meta["%s"] is required`, metaProtocolVersion)
	}
	if m.ClientCapabilities == nil {
		return InvalidParams(`Invalid params: _meta["%s"] is required ({} declares none)`, metaClientCapabilities)
	}
	version := *m.ProtocolVersion
	if h != nil {
		if hv := strings.TrimSpace(h.ProtocolVersion); hv != version {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: MCP-Protocol-Version header value '" + hv + "' does not match body value '" + version + "'"}
		}
	}
	if !IsModernVersion(version) {
		return &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": supportedVersions, "requested": version}}
	}
	if m.LogLevel != nil && m.LogLevel.severity() == 0 {
		return InvalidParams(`Invalid params: _meta["%s"] must be one of debug, info, notice, warning, error, critical, alert, emergency`, metaLogLevel)
	}
	if h != nil {
		if err := checkRoutingHeaders(req, h); err != nil {
			return err
		}
	}
	req.ProtocolVersion = version
	req.ClientCapabilities = m.ClientCapabilities
	return nil
}

// nameHeaderSource returns the body value Mcp-Name must equal, and whether
// the method requires the header.
func nameHeaderSource(method string, p *Params) (string, bool) {
	switch method {
	case "tools/call", "prompts/get":
		return p.Name, true
	case "resources/read":
		return p.URI, true
	case "tasks/get", "tasks/update", "tasks/cancel":
		return p.TaskID, true
	}
	return "", false
}

func checkRoutingHeaders(req *Request, h *Headers) error {
	if !h.HasMethod {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: the Mcp-Method header is required"}
	}
	if v, ok := headerValue(h.Method); !ok || v != req.Method {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: Mcp-Method header value '" + strings.TrimSpace(h.Method) + "' does not match body value '" + req.Method + "'"}
	}
	want, required := nameHeaderSource(req.Method, req.Params)
	if !required {
		return nil
	}
	if !h.HasName {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: the Mcp-Name header is required for " + req.Method}
	}
	if v, ok := headerValue(h.Name); !ok || v != want {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: Mcp-Name header value '" + strings.TrimSpace(h.Name) + "' does not match body value '" + want + "'"}
	}
	return nil
}

// headerValue trims optional whitespace and decodes the base64 sentinel
// =?base64?...?=. ok is false for a malformed sentinel.
func headerValue(v string) (string, bool) {
	v = strings.Trim(v, " \t")
	const pre, suf = "=?base64?", "?="
	if len(v) >= len(pre)+len(suf) && strings.HasPrefix(v, pre) && strings.HasSuffix(v, suf) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(pre) : len(v)-len(suf)])
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return "", false
		}
	}
	return v, true
}

// checkParamHeaders compares the Mcp-Param-* headers with the arguments
// of a tools/call whose tool mirrors arguments in headers.
func checkParamHeaders(t *tool, args json.RawMessage, h *Headers) error {
	if len(t.headers) == 0 {
		return nil
	}
	var values map[string]json.RawMessage
	if len(args) > 0 {
		_ = json.Unmarshal(args, &values)
	}
	for _, ph := range t.headers {
		raw, present := values[ph.prop]
		present = present && string(raw) != "null"
		hv, sent := h.Params[ph.header]
		if !present {
			continue
		}
		if !sent {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: the Mcp-Param-" + ph.header + " header is required when argument '" + ph.prop + "' is present"}
		}
		v, ok := headerValue(hv)
		if !ok {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: Mcp-Param-" + ph.header + " has invalid characters or bad base64"}
		}
		if !headerMatches(ph.kind, v, raw) {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: Mcp-Param-" + ph.header + " header value '" + v + "' does not match argument '" + ph.prop + "'"}
		}
	}
	return nil
}

func headerMatches(kind, header string, raw json.RawMessage) bool {
	switch kind {
	case "string":
		var s string
		return json.Unmarshal(raw, &s) == nil && s == header
	case "integer":
		hv, err1 := strconv.ParseFloat(header, 64)
		bv, err2 := strconv.ParseFloat(string(raw), 64)
		return err1 == nil && err2 == nil && hv == bv
	case "boolean":
		return (header == "true" || header == "false") && header == string(raw)
	}
	return false
}

// notification handles a message without an id: it gets no response.
func (s *Server) notification(method string, p *Params, in *Inbound, era Era) {
	switch method {
	case "notifications/initialized":
		if in.Session != nil {
			in.Session.initialized.Store(true)
		}
	case "notifications/cancelled":
		// The request may be a session's (legacy) or the connection's
		// (modern over stdio): look in both.
		if len(p.RequestID) > 0 {
			id := string(p.RequestID)
			if in.Session == nil || !in.Session.flight.Cancel(id) {
				if in.InFlight != nil {
					in.InFlight.Cancel(id)
				}
			}
		}
	}
}

// flightOf returns the tracker of running requests for a message.
func flightOf(sess *Session, in *Inbound) *InFlight {
	if sess != nil {
		return &sess.flight
	}
	return in.InFlight
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if validID(id) {
		return id
	}
	return nil
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func (s *Server) errorReply(id json.RawMessage, era Era, err error) Reply {
	e, ok := err.(*Error)
	if !ok {
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}
	bp := bufPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(e.Code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if e.Data != nil {
		b = append(b, `,"data":`...)
		var encErr error
		if b, encErr = appendAny(b, e.Data); encErr != nil {
			s.logger.Error("sake: cannot encode error data", "err", encErr)
			b = append(b, "null"...)
		}
	}
	b = append(b, "}}"...)
	body := append([]byte(nil), b...)
	*bp = b
	bufPool.Put(bp)
	return Reply{Body: body, ErrorCode: e.Code, Era: era}
}

func (s *Server) resultReply(req *Request, res any) Reply {
	bp := bufPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, req.ID...)
	b = append(b, `,"result":`...)
	w := resultWriter{s: s, era: req.Era, rev: revisionOf(req)}
	b, err := w.appendResult(b, res)
	if err != nil {
		*bp = b
		bufPool.Put(bp)
		s.logger.Error("sake: cannot encode result", "method", req.Method, "err", err)
		return s.errorReply(req.ID, req.Era, &Error{Code: CodeInternalError, Message: "Internal error: the result could not be encoded"})
	}
	b = append(b, '}')
	body := append([]byte(nil), b...)
	*bp = b
	bufPool.Put(bp)
	return Reply{Body: body, Era: req.Era}
}
