package plug

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// Handler serves one MCP endpoint over Streamable HTTP, both protocol
// eras on one URL. It is an http.Handler; build it with New, mount it on
// any router, and Close it when the server stops.
type Handler struct {
	srv *sake.Server
	cfg config

	mu        sync.RWMutex
	sessions  map[string]*entry
	closed    bool
	janitorOn bool

	amu    sync.Mutex
	active map[*postWriter]struct{} // POST responses that are streaming

	shut      atomic.Bool
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup // the janitor

	base atomic.Pointer[baseURL]

	replay replayBudget // bytes kept for Last-Event-ID, all sessions
}

// New returns a Handler that feeds every request to srv.
func New(srv *sake.Server, opts ...Option) *Handler {
	if srv == nil {
		panic("plug: New needs a *sake.Server")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	h := &Handler{
		srv:      srv,
		cfg:      cfg,
		sessions: make(map[string]*entry),
		active:   make(map[*postWriter]struct{}),
		done:     make(chan struct{}),
	}
	h.replay.max = cfg.replayTotalBytes
	return h
}

// Close ends this handler's copy of every legacy session (their running
// requests are cancelled; a session shared with other replicas through a
// backend.SessionStore goes on there, and only this replica's copy ends),
// every open stream (GET streams end, streaming POST requests are
// cancelled), and stops the goroutine that expires idle sessions. Requests
// that arrive afterwards get 503. Close is idempotent. Call it when the
// HTTP server shuts down, for example with
// httpServer.RegisterOnShutdown(h.Close): http.Server.Shutdown waits for
// open streams, which only Close ends.
func (h *Handler) Close() {
	h.closeOnce.Do(func() {
		h.shut.Store(true)
		h.mu.Lock()
		h.closed = true
		entries := make([]*entry, 0, len(h.sessions))
		for _, e := range h.sessions {
			entries = append(entries, e)
		}
		clear(h.sessions)
		h.mu.Unlock()
		h.amu.Lock()
		streaming := h.active
		h.active = nil
		h.amu.Unlock()
		close(h.done)
		for _, e := range entries {
			e.leave()
		}
		for p := range streaming {
			p.cancelRequest()
		}
		h.wg.Wait()
	})
}

// ServeHTTP answers one HTTP request: POST carries a JSON-RPC message,
// GET opens or resumes a legacy SSE stream, DELETE ends a legacy session.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer h.recoverPanic(w, nil)
	// A body must be in within BodyReadTimeout, whether it is read or
	// refused unread: net/http reads what the handler left of it before
	// the connection's next request, and a deadline is what bounds that.
	// readBody lifts it once the whole body is in.
	var rc *http.ResponseController
	if d := h.cfg.bodyTimeout; d > 0 && r.ContentLength != 0 && r.Body != http.NoBody {
		rc = http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) != nil {
			rc = nil
		}
	}
	if !h.hostAllowed(r) {
		h.refuse(w, r, http.StatusForbidden, bodyForbiddenHost)
		return
	}
	if !h.originAllowed(r) {
		h.refuse(w, r, http.StatusForbidden, bodyForbiddenOrigin)
		return
	}
	if h.shut.Load() {
		h.refuse(w, r, http.StatusServiceUnavailable, bodyShutdown)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r, rc)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	default:
		w.Header()["Allow"] = hdrAllow
		h.refuse(w, r, http.StatusMethodNotAllowed, bodyMethod)
	}
}

// refuse answers with a transport-level error and logs it at debug level.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	if h.cfg.logger.Enabled(r.Context(), slog.LevelDebug) {
		h.cfg.logger.Debug("plug: request refused", "method", r.Method, "status", status,
			"host", r.Host, "origin", r.Header.Get("Origin"), "body", string(body))
	}
	writeJSON(w, status, body)
}

// starter reports whether a response has begun, so a panic after it does
// not write a second status.
type starter interface{ started() bool }

// recoverPanic turns a panic in the handler into a 500 with a JSON-RPC
// error, or ends a response already under way.
func (h *Handler) recoverPanic(w http.ResponseWriter, s starter) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	h.cfg.logger.Error("plug: panic while serving a request", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	if s == nil || !s.started() {
		writeJSON(w, http.StatusInternalServerError, bodyInternal)
	}
}

// authenticate runs the Identify hook; on failure it has answered.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*sake.Identity, bool) {
	if h.cfg.identify == nil {
		return nil, true
	}
	id, err := h.cfg.identify(r)
	if err == nil {
		return id, true
	}
	status := http.StatusUnauthorized
	var st interface{ HTTPStatus() int }
	if errors.As(err, &st) {
		if s := st.HTTPStatus(); s >= 400 && s < 500 || s == http.StatusServiceUnavailable {
			status = s
		}
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter(err))
	}
	var ch interface{ WWWAuthenticate() string }
	if errors.As(err, &ch) {
		if c := ch.WWWAuthenticate(); c != "" {
			w.Header().Set("WWW-Authenticate", c)
		}
	}
	h.refuse(w, r, status, errorBody(sake.CodeInvalidRequest, "Unauthorized: "+err.Error()))
	return nil, false
}

// servePOST hands one JSON-RPC message to the dispatcher and writes its
// reply: JSON, or SSE once a notification comes before the reply.
func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request, rc *http.ResponseController) {
	if !isJSONType(r.Header.Get("Content-Type")) {
		h.refuse(w, r, http.StatusUnsupportedMediaType, bodyContentType)
		return
	}
	jsonOK, sseOK := acceptable(r.Header["Accept"])
	if !jsonOK && !sseOK {
		h.refuse(w, r, http.StatusNotAcceptable, bodyAcceptPOST)
		return
	}
	id, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	body, bp, status := h.readBody(w, r, rc)
	if status != 0 {
		switch status {
		case http.StatusRequestEntityTooLarge:
			h.refuse(w, r, status, bodyTooLarge)
		case http.StatusRequestTimeout:
			w.Header().Set("Connection", "close")
			h.refuse(w, r, status, bodyTooSlow)
		default:
			h.refuse(w, r, status, bodyUnreadable)
		}
		return
	}
	defer putBody(bp)

	// One allocation holds what the request needs beyond the dispatcher.
	x := &postExchange{}
	in, p := &x.in, &x.out
	readHeaders(&x.hdr, r.Header)
	in.Identity, in.Headers, in.BaseURL = id, &x.hdr, h.baseURL(r)
	in.Transport = "http"
	in.SessionID, in.RemoteAddr = r.Header.Get("Mcp-Session-Id"), remoteIP(r)
	in.Stream = p
	// The server decodes the message and resolves its session; a legacy
	// message of a session gets a resumable stream.
	msg := transport.Decode(h.srv, body, in)
	ctx := r.Context()
	var e *entry
	if sess := msg.Session(); sess != nil {
		if e = h.entryOf(sess); e != nil {
			e.busy.Add(1)
			defer e.busy.Add(-1)
			defer transport.Hold(sess)()
			// A legacy client's disconnect is not a cancellation: it may
			// resume the stream with Last-Event-ID.
			ctx = context.WithoutCancel(ctx)
		}
	}
	// A session's request needs no cancel of its own: closing the session
	// (Close closes them all) cancels the requests it runs.
	if e == nil {
		x.ctx.parent = ctx
		ctx, p.ctx = &x.ctx, &x.ctx
		defer x.ctx.release()
	}
	p.h, p.w, p.e, p.jsonOK, p.sseOK = h, w, e, jsonOK, sseOK
	if e != nil {
		p.chunked = r.ProtoAtLeast(1, 1)
		defer p.watchDisconnect(r)()
	}
	defer h.recoverPanic(w, p)
	// Nothing keeps the body once finish has written it (a resumable
	// stream keeps a frame of its own): it is encoded in a pooled buffer.
	rb := bodyPool.Get().(*[]byte)
	defer putBody(rb)
	reply := msg.HandleInto(ctx, rb)
	p.finish(r, &reply, in)
}

// serveGET opens the session's standalone stream, or with Last-Event-ID
// resumes the stream that issued that id.
func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		w.Header()["Allow"] = hdrAllowSessionless
		h.refuse(w, r, http.StatusMethodNotAllowed, bodyNoSession)
		return
	}
	if _, sseOK := acceptable(r.Header["Accept"]); !sseOK {
		h.refuse(w, r, http.StatusNotAcceptable, bodyAcceptGET)
		return
	}
	id, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	e, err := h.lookup(sid, id)
	if e == nil {
		h.lookupFailed(w, r, err)
		return
	}
	e.busy.Add(1)
	defer e.busy.Add(-1)
	defer transport.Hold(e.sess)()

	var st *stream
	var after uint64
	last := strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	resume := last != ""
	if resume {
		n, seq, ok := parseEventID(last)
		issued := false
		if ok {
			st, issued = e.stream(n)
			after = seq
		}
		if st == nil && issued {
			h.replayLost(w, r, last)
			return
		}
		if st == nil {
			h.refuse(w, r, http.StatusBadRequest, bodyBadEventID)
			return
		}
	} else {
		st = e.standaloneStream()
	}
	g := newGetSink()
	replay, prime, final, lost, ok := st.attach(g, resume, after)
	if !ok {
		h.refuse(w, r, http.StatusBadRequest, bodyBadEventID)
		return
	}
	if lost {
		h.replayLost(w, r, last)
		return
	}
	if !final {
		defer st.detach(g)
	}
	startSSE(w)
	sw := newSSEWriter(w)
	if !resume {
		sw.write(appendPriming(nil, prime))
	}
	for _, f := range replay {
		sw.write(f)
	}
	if !sw.flush() || final {
		return
	}
	h.pump(r, e, st, g, &sw)
}

// pump writes a stream's events to a GET response until the stream ends,
// the client leaves, the session ends, another GET takes the stream over,
// or the handler closes. Idle streams get keep-alive comments.
func (h *Handler) pump(r *http.Request, e *entry, st *stream, g *getSink, sw *sseWriter) {
	t := time.NewTicker(h.cfg.keepAlive)
	defer t.Stop()
	drain := func() bool {
		for {
			select {
			case f := <-g.out:
				sw.write(f)
			default:
				return sw.flush()
			}
		}
	}
	for {
		select {
		case f := <-g.out:
			sw.write(f)
			if !drain() {
				return
			}
		case <-st.done:
			drain()
			return
		case <-g.stop:
			drain()
			return
		case <-r.Context().Done():
			return
		case <-e.closed:
			return
		case <-e.sess.Done():
			h.remove(e)
			return
		case <-h.done:
			return
		case <-t.C:
			if !sw.send(keepAliveFrame) {
				return
			}
		}
	}
}

// serveDELETE ends a legacy session.
func (h *Handler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		w.Header()["Allow"] = hdrAllowSessionless
		h.refuse(w, r, http.StatusMethodNotAllowed, bodyNoSession)
		return
	}
	id, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	e, err := h.lookup(sid, id)
	if e == nil {
		h.lookupFailed(w, r, err)
		return
	}
	h.remove(e)
	w.WriteHeader(http.StatusNoContent)
}

// lookupFailed answers a GET or DELETE whose session was not found: 404
// when there is none, 503 when the server could not say (err).
func (h *Handler) lookupFailed(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		h.refuse(w, r, http.StatusNotFound, bodySessionNotFound)
		return
	}
	body := bodyStoreDown
	if errors.Is(err, sake.ErrTooManySessions) {
		body = bodyNoRoom
	}
	h.unavailable(w, r, err, body)
}

// unavailable answers 503 with Retry-After to a message the server refused
// for a reason outside it (cause, see sake.Reply.Cause), with body, the
// server's error saying what happened.
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, cause error, body []byte) {
	// The server logs a store that fails; a full server is logged here.
	if cause == nil || errors.Is(cause, sake.ErrTooManySessions) {
		h.cfg.logger.Warn("plug: refused: no room for a session; raise sake.Limits.MaxSessions or sake.Limits.MaxSessionsPerOwner", "method", r.Method)
	}
	w.Header().Set("Retry-After", retryAfter(cause))
	h.refuse(w, r, http.StatusServiceUnavailable, body)
}

// replayLost answers a resumption whose events were dropped to keep replay
// memory within its bounds: 410, rather than a stream with a gap.
func (h *Handler) replayLost(w http.ResponseWriter, r *http.Request, last string) {
	h.cfg.logger.Warn("plug: events to replay were already dropped; raise plug.ReplayBuffer or plug.ReplayBytes",
		"last-event-id", last)
	h.refuse(w, r, http.StatusGone, bodyReplayLost)
}

// retryAfter renders when to try again after err, in whole seconds: from
// its RetryAfter() method when it has one, else DefaultRetryAfter.
func retryAfter(err error) string {
	d := DefaultRetryAfter
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) {
		if v := ra.RetryAfter(); v > 0 {
			d = v
		}
	}
	return retrySeconds(d)
}
