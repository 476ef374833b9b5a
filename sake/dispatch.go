package sake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// decode fills m from msg: everything a transport may ask before the
// message is handled, and the answer when decoding decides it.
func (s *Server) decode(m *message, msg []byte, in *Inbound) {
	m.req.srv, m.in, m.msg = s, in, msg
	if in.SessionID != "" && in.Session == nil && !in.SessionNotFound && in.SessionErr == nil {
		in.Session, in.SessionErr = s.lookupSession(in.SessionID, in.Identity.Owner())
		in.SessionNotFound = in.Session == nil && in.SessionErr == nil
	}
	if in.SessionErr != nil && isArray(msg) {
		m.unavailable(nil, in.SessionErr)
		return
	}
	if batchAllowed(in) && isArray(msg) {
		m.kind, m.era = protocol.KindBatch, EraLegacy
		return
	}
	env := &m.env
	m.paramsErr = decodeMessage(msg, env, &m.params, &m.meta)
	if e := m.paramsErr; e != nil && e.code != CodeInvalidParams {
		m.refuse(idOrNull(env.ID), EraUnknown, &Error{Code: e.code, Message: e.message})
		return
	}
	if env.JSONRPC != "2.0" {
		m.refuse(idOrNull(env.ID), EraUnknown, &Error{Code: CodeInvalidRequest, Message: `Invalid request: "jsonrpc" must be "2.0"`})
		return
	}
	if env.Method == nil {
		if env.ID != nil && (env.Result != nil || env.Error != nil) {
			m.kind, m.era = protocol.KindResponse, EraLegacy
			if in.SessionErr != nil {
				m.unavailable(nil, in.SessionErr)
			}
			return
		}
		m.refuse(idOrNull(env.ID), EraUnknown, &Error{Code: CodeInvalidRequest, Message: "Invalid request: a request needs a method"})
		return
	}
	if env.ID != nil && !protocol.ValidID(env.ID) {
		m.refuse(nil, EraUnknown, &Error{Code: CodeInvalidRequest, Message: "Invalid request: the id must be a string or a number of at most " + strconv.Itoa(protocol.MaxIDBytes) + " bytes"})
		return
	}
	p := env.Params
	if p == nil {
		p = &m.params
	}
	m.era = classify(*env.Method, p, in)
	if in.SessionErr != nil && m.era == EraLegacy {
		m.unavailable(idOrNull(env.ID), in.SessionErr)
		return
	}
	if env.ID == nil {
		m.kind = protocol.KindNotification
		return
	}
	m.kind = protocol.KindRequest
	if m.paramsErr != nil || *env.Method == "initialize" {
		return
	}
	// Track the request from now on, so that a cancellation decoded right
	// after it finds it, even before it runs.
	var sess *Session
	if m.era == EraLegacy {
		sess = in.Session
	}
	if f := flightOf(sess, in); f != nil {
		fl, ok := f.track(string(env.ID), *env.Method == "subscriptions/listen", s.maxInFlight())
		if !ok {
			m.refuse(env.ID, m.era, &Error{Code: CodeServerBusy, Message: "Server busy: too many requests in flight on this connection; wait for some to finish"})
			m.fail.Busy = true
			return
		}
		m.req.fl, m.flights = fl, f
	}
}

// unavailable refuses a legacy message whose session could not be looked
// up: the session may well be alive, so the client is told to retry, not
// that it is gone.
func (m *message) unavailable(id json.RawMessage, cause error) {
	msg := "Service unavailable: the session store cannot be read right now; retry later, the session is kept"
	if errors.Is(cause, ErrTooManySessions) {
		msg = "Server busy: this server has no room for the session right now; retry later, the session is kept"
	}
	m.refuse(id, EraLegacy, protocol.ServerBusy(msg, cause))
	m.fail.Cause = cause
}

// refuse decides the message's answer at decoding.
func (m *message) refuse(id json.RawMessage, era Era, err *Error) {
	r := m.req.srv.errorReply(id, era, err)
	m.fail, m.era = &r, era
}

// HandleInto is Handle with the reply's body built in *buf where the
// dispatcher can (a result): a transport that writes the body out before
// it reuses *buf allocates no body per reply. *buf is set to the buffer
// as grown; Reply.Body is either a slice of it, valid until *buf is
// reused, or one of its own. A Request hook is shown the same body, in
// place (RequestDone.Reply: a hook that keeps it copies it).
func (m *message) HandleInto(ctx context.Context, buf *[]byte) Reply {
	return m.handle(ctx, buf)
}

// Handle handles the message and returns the answer. It must be called
// once. ctx ends the handling when cancelled.
func (m *message) Handle(ctx context.Context) Reply { return m.handle(ctx, nil) }

// handle is Handle, with the reply encoded in buf when it is not nil.
func (m *message) handle(ctx context.Context, buf *[]byte) (reply Reply) {
	s, in, env := m.req.srv, m.in, &m.env
	if m.fail != nil {
		m.untrack()
		r := *m.fail
		r.Method = m.env.method
		return r
	}
	switch m.kind {
	case protocol.KindBatch:
		return s.handleBatch(ctx, m.msg, in)
	case protocol.KindResponse:
		// An answer to a server-initiated request.
		if in.Session != nil && !in.Session.deliver(env.ID, env.Result, env.Error) && in.Session.shared {
			s.relay(backend.RelayAnswer, in.Session.id, m.msg)
		}
		return Reply{Era: EraLegacy}
	}
	p := env.Params
	if p == nil {
		p = &m.params
	}
	s.begin()
	defer func() {
		if reply.deferred {
			// The reply comes later, from whoever finishes the call
			// (deferral.finish), which also settles the request.
			reply = Reply{Era: reply.Era, Method: reply.Method}
			return
		}
		m.settle(&reply) // even when a handler panicked through here
	}()
	req := &m.req
	*req = Request{ID: env.ID, Method: *env.Method, Params: p, Era: m.era, Identity: in.Identity,
		BaseURL: in.BaseURL, Message: m.msg, in: in, srv: s, ctx: &m.ctx, fl: m.req.fl}
	// The reply is built in the transport's buffer, hooked or not: a
	// Request hook sees it before the transport writes it, and does not
	// keep it (RequestDone.Reply).
	req.replyBuf = buf
	if m.kind == protocol.KindRequest {
		m.offerDeferral()
	}
	if h := s.opts.requestHook; h != nil {
		return s.observed(ctx, req, m.paramsErr, h)
	}
	return s.handleRequest(ctx, req, m.paramsErr, nil)
}

// settle ends the handling of a request once its reply is known: the
// session it opened is kept (or closed, when the request was cancelled),
// the request leaves its tracker and the server's count.
func (m *message) settle(reply *Reply) {
	if sess := reply.Session; sess != nil {
		if reply.Cancelled {
			sess.Close()
			reply.Session = nil
		} else if c := m.in.conn; c != nil {
			c.adopt(sess)
		}
	}
	m.untrack()
	m.req.srv.end()
}

// untrack takes the request out of its tracker, if it is in one.
func (m *message) untrack() {
	if fl := m.req.fl; fl != nil {
		m.flights.untrack(string(m.env.ID), fl)
	}
}

// observed handles a request between the Request hook's start and done.
func (s *Server) observed(ctx context.Context, req *Request, paramsErr *decodeError, hook func(context.Context, *Request) (context.Context, func(RequestDone))) Reply {
	hctx, done := hook(ctx, req)
	if hctx != nil {
		ctx = hctx
	}
	if done == nil {
		return s.handleRequest(ctx, req, paramsErr, nil)
	}
	if d := req.dfr; d != nil {
		// A call that replies later tells the hook then.
		d.hookDone, d.hooked = done, true
		reply := s.handleRequest(ctx, req, paramsErr, &d.out)
		if !reply.deferred {
			d.hookDone, d.hooked = nil, false
			showDone(done, &d.out, reply)
		}
		return reply
	}
	var out RequestDone
	reply := s.handleRequest(ctx, req, paramsErr, &out)
	showDone(done, &out, reply)
	return reply
}

// showDone tells a Request hook's done the outcome of its request.
func showDone(done func(RequestDone), out *RequestDone, reply Reply) {
	// The hook does not keep the Reply (RequestDone.Reply): a pooled one
	// shows it, so that the reply does not escape to the heap.
	shown := replyPool.Get().(*Reply)
	*shown = reply
	out.Reply = shown
	if out.Error == nil && reply.ErrorCode != 0 {
		out.Error = &Error{Code: reply.ErrorCode}
	}
	done(*out)
	*shown = Reply{}
	replyPool.Put(shown)
}

// replyPool holds the Replies shown to Request hooks.
var replyPool = sync.Pool{New: func() any { return new(Reply) }}

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
	var cancel context.CancelFunc
	if req.fl != nil {
		ctx, cancel = context.WithCancel(ctx)
		req.fl.start(cancel)
		defer func() {
			if cancel != nil {
				cancel()
			}
		}()
	}
	if d := req.dfr; d != nil {
		d.ctx, d.cancel, d.out0 = ctx, cancel, out
	}
	res, err := s.handler(ctx, req)
	if err == errDeferred {
		// Nothing more here: deferral.finish answers (outcome) and
		// cancels the context.
		cancel = nil
		return Reply{Era: era, Method: method, deferred: true}
	}
	return s.outcome(ctx, req, res, err, out)
}

// outcome turns what the handler of a request returned into the reply.
// out, when not nil, receives the result or error for the Request hook.
func (s *Server) outcome(ctx context.Context, req *Request, res any, err error, out *RequestDone) Reply {
	method, era := req.Method, req.Era
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
		reply.Busy, reply.Cause, reply.RetryAfter = e.Code == CodeServerBusy, e.Unwrap(), e.RetryAfter()
	}
	if out != nil && answered != nil {
		out.Error = answered
	}
	reply.Method, reply.Session = method, req.newSession
	reply.Cancelled = ctx.Err() != nil
	return reply
}

// classify decides the era of a message from what is already decoded.
func classify(method string, p *Params, in *Inbound) Era {
	if m := p.Meta; m != nil && (m.ProtocolVersion != nil || m.ClientCapabilities != nil) {
		return EraModern
	}
	if h := in.Headers; h != nil && h.ProtocolVersion != "" && !protocol.IsLegacyVersion(strings.TrimSpace(h.ProtocolVersion)) && method != "initialize" && in.Session == nil {
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
			req.ClientCapabilities = &protocol.ClientCapabilities{}
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
	req.ClientCapabilities = &protocol.ClientCapabilities{}
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
		return InvalidParams(`Invalid params: _meta["%s"] is required`, protocol.MetaProtocolVersion)
	}
	if m.ClientCapabilities == nil {
		return InvalidParams(`Invalid params: _meta["%s"] is required ({} declares none)`, protocol.MetaClientCapabilities)
	}
	version := *m.ProtocolVersion
	if h != nil {
		if hv := strings.TrimSpace(h.ProtocolVersion); hv != version {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: MCP-Protocol-Version header value '" + hv + "' does not match body value '" + version + "'"}
		}
	}
	if !protocol.IsModernVersion(version) {
		return &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": supportedVersions, "requested": version}}
	}
	if m.LogLevel != nil && m.LogLevel.Severity() == 0 {
		return InvalidParams(`Invalid params: _meta["%s"] must be one of debug, info, notice, warning, error, critical, alert, emergency`, protocol.MetaLogLevel)
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
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: the Mcp-Param-" + ph.name + " header is required when argument '" + ph.prop + "' is present"}
		}
		v, ok := headerValue(hv)
		if !ok {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: Mcp-Param-" + ph.name + " has invalid characters or bad base64"}
		}
		if !headerMatches(ph.kind, v, raw) {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: Mcp-Param-" + ph.name + " header value '" + v + "' does not match argument '" + ph.prop + "'"}
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
		if in.Session != nil && !in.Session.initialized.Swap(true) {
			s.sessionChanged(in.Session)
		}
	case "notifications/cancelled":
		// The request may be a session's (legacy) or the connection's
		// (modern over stdio): look in both.
		if len(p.RequestID) > 0 {
			id := string(p.RequestID)
			if in.Session == nil || !in.Session.flight.cancel(id) {
				if in.conn != nil {
					in.conn.flight.cancel(id)
				} else if in.Session != nil && in.Session.shared {
					s.relay(backend.RelayCancel, in.Session.id, p.RequestID)
				}
			}
		}
	}
}

// flightOf returns the tracker of running requests for a message: its
// session's, else its connection's; HTTP's modern requests have none (a
// disconnect cancels them).
func flightOf(sess *Session, in *Inbound) *inFlight {
	if sess != nil {
		return &sess.flight
	}
	if in.conn != nil {
		return &in.conn.flight
	}
	return nil
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if protocol.ValidID(id) {
		return id
	}
	return nil
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledBuf is the largest buffer kept for reuse: one huge reply must
// not pin its buffer for the life of the process.
const maxPooledBuf = 64 << 10

func putBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledBuf {
		bufPool.Put(bp)
	}
}

func (s *Server) errorReply(id json.RawMessage, era Era, err error) Reply {
	e, ok := err.(*Error)
	if !ok {
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}
	bp := bufPool.Get().(*[]byte)
	b, encErr := protocol.AppendError((*bp)[:0], id, e)
	if encErr != nil {
		s.logger.Error("sake: cannot encode error data", "err", encErr)
	}
	body := append([]byte(nil), b...)
	*bp = b
	putBuf(bp)
	return Reply{Body: body, ErrorCode: e.Code, Era: era}
}

// resultReply encodes a result: in the transport's buffer when it lent
// one (HandleInto), else in a pooled one copied out.
func (s *Server) resultReply(req *Request, res any) Reply {
	bp, lent := req.replyBuf, req.replyBuf != nil
	if !lent {
		bp = bufPool.Get().(*[]byte)
	}
	b := protocol.AppendResultHead((*bp)[:0], req.ID)
	w := resultWriter{s: s, era: req.Era, rev: revisionOf(req)}
	b, err := w.appendResult(b, res)
	if err != nil {
		*bp = b
		if !lent {
			putBuf(bp)
		}
		s.logger.Error("sake: cannot encode result", "method", req.Method, "err", err)
		return s.errorReply(req.ID, req.Era, &Error{Code: CodeInternalError, Message: "Internal error: the result could not be encoded"})
	}
	b = append(b, '}')
	if lent {
		*bp = b
		return Reply{Body: b, Era: req.Era}
	}
	if cap(b) > maxPooledBuf {
		// A reply too big for the pool is handed over as it is, not
		// copied; the pool keeps the small buffer it lent.
		bufPool.Put(bp)
		return Reply{Body: b, Era: req.Era}
	}
	body := append([]byte(nil), b...)
	*bp = b
	putBuf(bp)
	return Reply{Body: body, Era: req.Era}
}
