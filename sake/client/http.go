package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// HTTPOption configures a Streamable HTTP transport.
type HTTPOption func(*httpTransport)

// Header adds a header to every request the transport sends.
func Header(key, value string) HTTPOption {
	return func(h *httpTransport) { h.header.Add(key, value) }
}

// BearerToken sends token as the Authorization of every request to the
// endpoint, and nowhere else (the transport follows no redirects: see
// HTTP). For tokens that expire, use OAuth instead.
func BearerToken(token string) HTTPOption {
	return WithAuthorizer(staticToken(token))
}

// WithAuthorizer makes the transport authorize its requests with a: OAuth
// builds one that runs the whole flow.
func WithAuthorizer(a Authorizer) HTTPOption { return func(h *httpTransport) { h.auth = a } }

// Authorizer gives the requests of an HTTP transport their credentials and
// reacts to the server's challenges.
type Authorizer interface {
	// Authorize sets the credentials of a request to the MCP endpoint.
	Authorize(ctx context.Context, req *http.Request) error
	// Challenged is told of a 401 or 403 answer; it reports whether the
	// request should be sent again (it obtained better credentials).
	// attempt counts the challenges of this request so far, from 0.
	Challenged(ctx context.Context, req *http.Request, resp *http.Response, attempt int) (retry bool, err error)
}

type staticToken string

func (t staticToken) Authorize(_ context.Context, req *http.Request) error {
	req.Header.Set("Authorization", "Bearer "+string(t))
	return nil
}

func (staticToken) Challenged(context.Context, *http.Request, *http.Response, int) (bool, error) {
	return false, nil
}

// HTTP connects to the Streamable HTTP endpoint at url through hc
// (http.DefaultClient when nil).
//
// The transport follows no redirects, whatever hc's CheckRedirect says (it
// sends through a copy of hc with a CheckRedirect of its own): a
// 3xx answer to a request of the endpoint (POST, the session's GET stream,
// DELETE) is an *HTTPError that names its Location, and the fix is to
// configure that final URL as the endpoint. So the credentials of the
// transport (Authorization, DPoP proofs, the headers of Header) go to the
// endpoint's origin only, never to where a server redirects them.
func HTTP(url string, hc *http.Client, opts ...HTTPOption) Transport {
	if hc == nil {
		hc = http.DefaultClient
	}
	h := &httpTransport{url: url, hc: noRedirects(hc), header: http.Header{}, pending: map[string]chan []byte{}, opaque: addsHeaders(hc)}
	// The endpoint is parsed once: each request gets a copy of it. A URL
	// that does not parse is left for each request to refuse, as before.
	if r, err := http.NewRequest(http.MethodPost, url, nil); err == nil {
		h.endpoint, h.host = r.URL, r.Host
	}
	for _, opt := range opts {
		opt(h)
	}
	// http.Client.Do would add nothing to a request of a client without a
	// cookie jar or Timeout to an endpoint without userinfo: the transport
	// is then called directly (see sendRequest).
	h.direct = hc.Jar == nil && hc.Timeout == 0 && h.endpoint != nil && h.endpoint.User == nil
	return h
}

// sendRequest sends req and returns the answer as hc.Do does, redirects not
// followed. When h.direct holds and hc's transport is net/http's own, it
// calls the transport itself, which saves what Do costs: Do would add no
// header (no cookie jar, no userinfo to turn into Basic credentials), set
// no deadline (no Timeout), and hand a redirect back as it came (see
// noRedirects); an error is a *url.Error as Do's are.
func (h *httpTransport) sendRequest(req *http.Request) (*http.Response, error) {
	if h.direct && req.URL.User == nil { // an Authorizer may have set it
		rt := h.hc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		if t, ok := rt.(*http.Transport); ok {
			resp, err := t.RoundTrip(req)
			if err != nil {
				return nil, &url.Error{Op: urlOp(req.Method), URL: req.URL.String(), Err: err}
			}
			return resp, nil
		}
	}
	return h.hc.Do(req)
}

// urlOp is the Op of a *url.Error for a request of method, as http.Client
// names it ("Post").
func urlOp(method string) string {
	switch method {
	case http.MethodPost:
		return "Post"
	case http.MethodGet:
		return "Get"
	case http.MethodDelete:
		return "Delete"
	}
	return method
}

type httpTransport struct {
	url string
	// endpoint is url parsed, host its Host as a request sends it; nil
	// when url does not parse.
	endpoint *url.URL
	host     string
	hc       *http.Client
	header   http.Header
	auth     Authorizer

	// opaque says the *http.Client may add headers of its own (a
	// RoundTripper such as golang.org/x/oauth2's Transport, a cookie
	// jar): the credential a request goes with is then known only once
	// it is sent, and sent holds the digest of the last one.
	opaque bool
	sent   atomic.Pointer[string]
	// direct says hc.Do would add nothing to a request (see sendRequest).
	direct bool

	incoming func(context.Context, []byte)
	max      int64
	logger   interface {
		Warn(msg string, args ...any)
	}

	mu        sync.Mutex
	session   string
	version   string // the negotiated handshake-era revision
	era       protocol.Era
	getCancel context.CancelFunc
	getDone   chan struct{}
	getReady  chan struct{} // closed once the GET stream answered
	closed    bool
	// pending are the requests waiting for their response: a server may
	// send it on another stream than the request's (the GET stream).
	pending map[string]chan []byte
}

func (h *httpTransport) bind(_ context.Context, incoming func(context.Context, []byte), o *options) error {
	h.incoming = incoming
	h.max = o.maxMessage
	h.logger = o.logger
	return nil
}

func (h *httpTransport) established(era protocol.Era, version string) {
	h.mu.Lock()
	h.era, h.version = era, version
	h.mu.Unlock()
}

// versionHeader is MCP-Protocol-Version in the form net/http keeps it,
// which Header.Set would allocate for each request.
const versionHeader = "Mcp-Protocol-Version"

// Header values every request sends alike, shared by them all. A header
// value is only ever replaced (Header.Set) or appended to, which copies a
// slice of capacity one: none of these is changed in place.
var (
	modernVersionValue = []string{protocol.ModernVersion}
	jsonValue          = []string{"application/json"}
	acceptJSONOrStream = []string{"application/json, text/event-stream"}
	acceptStream       = []string{"text/event-stream"}
	// methodValues are the Mcp-Method values of the requests a client
	// sends most.
	methodValues = map[string][]string{}
)

func init() {
	for _, m := range []string{"tools/call", "tools/list", "resources/read", "resources/list", "resources/templates/list",
		"prompts/get", "prompts/list", "completion/complete", "server/discover", "subscriptions/listen",
		"tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "ping"} {
		methodValues[m] = []string{m}
	}
}

// ownValue appends v to own and returns it as a header value of capacity
// one, so that appending to it copies it.
func ownValue(own *[]string, v string) []string {
	if *own == nil {
		*own = make([]string, 0, 2)
	}
	*own = append(*own, v)
	n := len(*own)
	return (*own)[n-1 : n : n]
}

// newRequest builds a request to the endpoint with the headers of m.
func (h *httpTransport) newRequest(ctx context.Context, method string, m *message) (*http.Request, error) {
	var body io.Reader
	if m != nil {
		body = bytes.NewReader(m.body)
	}
	target := h.url
	if h.endpoint != nil {
		target = "" // set below, without parsing the URL again
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if h.endpoint != nil {
		// The URL parsed from "" is the request's own: it takes a copy of
		// the endpoint in place of another allocation.
		*req.URL = *h.endpoint
		if u := req.URL; u.User != nil {
			user := *u.User
			u.User = &user
		}
		req.Host = h.host
	}
	for k, v := range h.header {
		req.Header[k] = v
	}
	h.mu.Lock()
	session, version := h.session, h.version
	h.mu.Unlock()
	var own []string // the values of this request's own headers share one array
	switch {
	case m != nil && m.era == protocol.EraModern:
		req.Header[versionHeader] = modernVersionValue
		if m.method != "" && m.id != 0 {
			if v := methodValues[m.method]; v != nil {
				req.Header["Mcp-Method"] = v
			} else {
				req.Header["Mcp-Method"] = ownValue(&own, m.method)
			}
		}
		if m.hasName {
			req.Header["Mcp-Name"] = ownValue(&own, headerValue(m.name))
		}
		for _, p := range m.params {
			req.Header.Set(p[0], p[1])
		}
	default:
		if session != "" && (m == nil || !m.handshake) {
			req.Header["Mcp-Session-Id"] = ownValue(&own, session)
		}
		if version != "" && (m == nil || !m.handshake) {
			req.Header[versionHeader] = ownValue(&own, version)
		}
	}
	if m != nil {
		req.Header["Content-Type"] = jsonValue
		req.Header["Accept"] = acceptJSONOrStream
	} else {
		req.Header["Accept"] = acceptStream
	}
	if h.auth != nil {
		if err := h.auth.Authorize(ctx, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// do sends a request, going through the authorizer's challenges.
func (h *httpTransport) do(ctx context.Context, method string, m *message, edit func(*http.Request)) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := h.newRequest(ctx, method, m)
		if err != nil {
			return nil, err
		}
		if edit != nil {
			edit(req)
		}
		resp, err := h.sendRequest(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			safe := redactURL(h.url)
			if ue, ok := errors.AsType[*url.Error](err); ok {
				ue.URL = safe // net/http hides the password only, not the query
			}
			return nil, fmt.Errorf("client: %s %s: %w", method, safe, err)
		}
		if h.opaque {
			h.noteSent(resp)
		}
		if resp.StatusCode/100 == 3 {
			return nil, redirectError(resp)
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp, nil
		}
		if h.auth != nil {
			retry, err := h.auth.Challenged(ctx, req, resp, attempt)
			if err != nil {
				drain(resp)
				return nil, err
			}
			if retry {
				drain(resp)
				continue
			}
		}
		return nil, challengeError(resp)
	}
}

// noRedirects returns a copy of hc that hands a redirect back instead of
// following it: net/http would send it again with the request's headers
// (Authorization to the same host on any port, DPoP proofs anywhere).
func noRedirects(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// redirectError is the error of a 3xx answer, naming where it pointed.
func redirectError(resp *http.Response) *HTTPError {
	defer drain(resp)
	e := httpError(resp)
	if u, err := resp.Location(); err == nil {
		e.location = u.String()
	}
	return e
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// challengeError turns a 401 or 403 into the error a caller can act on.
func challengeError(resp *http.Response) error {
	defer drain(resp)
	www := resp.Header.Get("WWW-Authenticate")
	ch := ParseChallenge(www)
	switch ch.Error {
	case "insufficient_scope":
		return &protocol.InsufficientScopeError{Scopes: ch.Scopes, Challenge: www, ResourceMetadata: ch.ResourceMetadata}
	case "insufficient_user_authentication":
		e := &protocol.InsufficientAuthenticationError{ACRValues: ch.ACRValues, Challenge: www, ResourceMetadata: ch.ResourceMetadata}
		if ch.MaxAge != nil {
			d := *ch.MaxAge
			e.MaxAge = &d
		}
		return e
	}
	return httpError(resp)
}

// httpError reads what an unexpected answer says.
func httpError(resp *http.Response) *HTTPError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	e := &HTTPError{Status: resp.StatusCode, Header: resp.Header, Body: body}
	var env struct {
		Error *protocol.Error `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		e.RPC = env.Error
	}
	return e
}

func isSSE(resp *http.Response) bool {
	switch ct := resp.Header.Get("Content-Type"); ct {
	case "application/json": // what a server answers a call with, most often
		return false
	case "text/event-stream":
		return true
	default:
		mt, _, _ := mime.ParseMediaType(ct)
		return mt == "text/event-stream"
	}
}

func (h *httpTransport) roundTrip(ctx context.Context, m *message) ([]byte, error) {
	if h.isClosed() {
		return nil, ErrClosed
	}
	// The response to a request of a session may come on the session's
	// GET stream (routeResponse): it is awaited there too. A 2026-07-28
	// request belongs to no session, and its response comes on its own
	// stream only (ch stays nil).
	var ch chan []byte
	if m.era != protocol.EraModern {
		key := itoa(m.id)
		ch = make(chan []byte, 1)
		h.mu.Lock()
		h.pending[key] = ch
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(h.pending, key)
			h.mu.Unlock()
		}()
	}
	resp, err := h.do(ctx, http.MethodPost, m, nil)
	if err != nil {
		if ctx.Err() != nil {
			h.cancelRequest(m)
		}
		return nil, err
	}
	if m.handshake {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			h.mu.Lock()
			h.session = id
			h.mu.Unlock()
		}
	}
	switch {
	case resp.StatusCode == http.StatusOK && isSSE(resp):
		body, err := h.readStream(ctx, m, resp, ch)
		if err != nil && ctx.Err() != nil {
			h.cancelRequest(m)
			return nil, ctx.Err()
		}
		return body, err
	case resp.StatusCode == http.StatusOK:
		defer resp.Body.Close()
		body, err := readAnswer(resp, h.max)
		if err != nil {
			if ctx.Err() != nil {
				h.cancelRequest(m)
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("client: reading the answer to %s: %w", m.method, err)
		}
		if int64(len(body)) > h.max {
			return nil, fmt.Errorf("client: the answer to %s exceeds %d bytes (raise MaxMessageBytes)", m.method, h.max)
		}
		if err := checkAnswer(body, m); err != nil {
			return nil, err
		}
		return body, nil
	case resp.StatusCode == http.StatusNotFound && m.era == protocol.EraLegacy && !m.handshake && h.hasSession():
		drain(resp)
		h.mu.Lock()
		h.session = ""
		h.mu.Unlock()
		h.stopGET()
		return nil, ErrSessionGone
	}
	defer drain(resp)
	return nil, httpError(resp)
}

// readAnswer reads a JSON answer, up to max+1 bytes: into a buffer of its
// length when the server gave one, so that reading it costs one
// allocation.
func readAnswer(resp *http.Response, max int64) ([]byte, error) {
	n := resp.ContentLength
	if n < 0 || n > max {
		return io.ReadAll(io.LimitReader(resp.Body, max+1))
	}
	// One byte more than announced, so that EOF is read here and net/http
	// puts the connection back into its pool at once.
	body := make([]byte, n, n+1)
	if _, err := io.ReadFull(resp.Body, body); err != nil {
		return nil, err
	}
	if m, _ := resp.Body.Read(body[n : n+1]); m > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return body, nil
}

func (h *httpTransport) sessionID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

func (h *httpTransport) hasSession() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session != ""
}

func (h *httpTransport) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// cancelRequest tells a session's server that the client gave up on m. A
// 2026-07-28 request is cancelled by closing its stream, which is done.
func (h *httpTransport) cancelRequest(m *message) {
	if m.era != protocol.EraLegacy || m.id == 0 || m.handshake {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.send(ctx, &message{body: cancelled(m.id, "the caller cancelled the call"), era: m.era})
}

// readStream reads a request's SSE answer: the messages before the
// response go to incoming. A session's stream that breaks before the
// response is resumed with GET and Last-Event-ID. The response may also
// come on the session's GET stream (through ch).
func (h *httpTransport) readStream(ctx context.Context, m *message, resp *http.Response, ch chan []byte) ([]byte, error) {
	key := itoa(m.id)
	sr := newSSEReader(resp.Body, h.max)
	body, err := h.await(ctx, sr, resp.Body, key, ch)
	if body != nil || ctx.Err() != nil {
		return body, err
	}
	var tooLarge *tooLargeError
	if m.era != protocol.EraLegacy || sr.lastID == "" || errors.As(err, &tooLarge) {
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("client: the server's stream for %s ended without an answer: %w", m.method, io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	for tries := 0; tries < maxResumes; tries++ {
		select {
		case b := <-ch:
			return b, nil
		default:
		}
		if err := wait(ctx, sr.retry); err != nil {
			return nil, err
		}
		resp, err := h.do(ctx, http.MethodGet, nil, func(r *http.Request) { r.Header.Set("Last-Event-ID", sr.lastID) })
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK || !isSSE(resp) {
			defer drain(resp)
			select {
			case b := <-ch:
				return b, nil
			default:
			}
			return nil, fmt.Errorf("client: resuming the stream of %s: %w", m.method, httpError(resp))
		}
		sr.r.Reset(resp.Body)
		body, err := h.await(ctx, sr, resp.Body, key, ch)
		if body != nil || ctx.Err() != nil || errors.As(err, &tooLarge) {
			return body, err
		}
	}
	return nil, fmt.Errorf("client: the server's stream for %s broke %d times without an answer", m.method, maxResumes)
}

// await reads one stream until the response with id key, or until the
// response arrives on another stream (ch); it closes the stream.
func (h *httpTransport) await(ctx context.Context, sr *sseReader, body io.ReadCloser, key string, ch chan []byte) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := h.events(ctx, sr, key)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		body.Close()
		return r.b, r.err
	case b := <-ch:
		body.Close()
		<-done
		return b, nil
	case <-ctx.Done():
		body.Close()
		<-done
		return nil, ctx.Err()
	}
}

// readyWait bounds the wait for a session's GET stream to open.
const readyWait = 3 * time.Second

// maxResumes bounds the reconnections of one request's stream.
const maxResumes = 10

// events reads a stream until the response with id key, handing the
// other messages to incoming.
func (h *httpTransport) events(ctx context.Context, sr *sseReader, key string) ([]byte, error) {
	for {
		data, err := sr.next()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		if isResponseTo(data, key) {
			return data, nil
		}
		h.incoming(ctx, data)
	}
}

// routeResponse hands a response that arrived on the GET stream to the
// request waiting for it; it reports whether msg was a response.
func (h *httpTransport) routeResponse(msg []byte) bool {
	peek, err := protocol.Peek(msg)
	if err != nil || peek.Kind() != protocol.KindResponse {
		return false
	}
	key := string(peek.ID)
	if key != "" && key[0] == '"' {
		_ = json.Unmarshal(peek.ID, &key)
	}
	h.mu.Lock()
	ch := h.pending[key]
	h.mu.Unlock()
	if ch != nil {
		select {
		case ch <- msg:
		default:
		}
	}
	return true
}

// isResponseTo reports whether msg is the response to the request whose
// id is key.
func isResponseTo(msg []byte, key string) bool {
	peek, err := protocol.Peek(msg)
	if err != nil || peek.Kind() != protocol.KindResponse {
		return false
	}
	id := string(peek.ID)
	if id == key {
		return true
	}
	var s string
	return json.Unmarshal(peek.ID, &s) == nil && s == key
}

// responseOpening is how a response opens as protocol writes it, up to
// its id (protocol.AppendResultHead without the id and what follows).
var responseOpening = func() []byte {
	head := protocol.AppendResultHead(nil, []byte("0"))
	return head[:len(head)-len(`0,"result":`)]
}()

// checkAnswer refuses a JSON answer to m that is not m's response: one
// with another id, or none. An error with a null id is m's (the server
// could not read the request's id); a body that is not JSON-RPC is left
// to decodeResponse to report.
func checkAnswer(body []byte, m *message) error {
	// The common case, without a scan: the answer starts with its id and
	// its result or error, as this library's servers write it.
	if rest, ok := bytes.CutPrefix(body, responseOpening); ok && m.id != 0 {
		var buf [20]byte
		key := strconv.AppendInt(buf[:0], m.id, 10)
		// A top-level "method" makes it a request, not an answer: where
		// the text could be one (anywhere but in a string), it is
		// looked for member by member below.
		if after, ok := bytes.CutPrefix(rest, key); ok && (bytes.HasPrefix(after, []byte(`,"result":`)) || bytes.HasPrefix(after, []byte(`,"error":`))) &&
			!bytes.Contains(after, []byte(`"method":`)) {
			return nil
		}
	}
	var id, errRaw []byte
	method := false
	if jsonscan.Members(body, func(key, v []byte) error {
		switch string(key) {
		case "id":
			id = v
		case "error":
			errRaw = v
		case "method":
			method = true
		}
		return nil
	}) != nil {
		return nil
	}
	key := itoa(m.id)
	switch {
	case method:
	case string(id) == key:
		return nil
	case string(id) == "null" && errRaw != nil:
		return nil
	case len(id) > 0 && id[0] == '"':
		if s, err := jsonscan.Unquote(id); err == nil && s == key {
			return nil
		}
	}
	if id == nil {
		id = []byte("none")
	}
	return fmt.Errorf("client: the server answered %s (id %s) with the response to another request (id %.40s): it is not following JSON-RPC, the answer is dropped", m.method, key, id)
}

// wait waits d (a second when the server asked nothing) or until ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		d = time.Second
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (h *httpTransport) send(ctx context.Context, m *message) error {
	resp, err := h.do(ctx, http.MethodPost, m, nil)
	if err != nil {
		return err
	}
	defer drain(resp)
	if resp.StatusCode/100 != 2 {
		if resp.StatusCode == http.StatusNotFound && h.hasSession() {
			return ErrSessionGone
		}
		return httpError(resp)
	}
	if m.method == "notifications/initialized" {
		h.startGET()
	}
	return nil
}

// startGET opens the standalone stream of a session, where the server
// sends what belongs to no request.
func (h *httpTransport) startGET() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.session == "" || h.getCancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, ready := make(chan struct{}), make(chan struct{})
	h.getCancel, h.getDone, h.getReady = cancel, done, ready
	go func() {
		// The stream is the session's, not the request's that opened it
		// (a new handshake within a call): it drops the profiler labels it
		// was started with.
		pprof.SetGoroutineLabels(context.Background())
		defer close(done)
		var once sync.Once
		h.listenGET(ctx, func() { once.Do(func() { close(ready) }) })
	}()
}

func (h *httpTransport) stopGET() {
	h.mu.Lock()
	cancel, done := h.getCancel, h.getDone
	h.getCancel, h.getDone = nil, nil
	h.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// listenGET holds the standalone stream open, reconnecting with
// Last-Event-ID when it breaks, until the session or the client ends or
// the server refuses it.
func (h *httpTransport) listenGET(ctx context.Context, answered func()) {
	defer answered()
	lastID := ""
	var retry time.Duration
	failures := 0
	for ctx.Err() == nil {
		resp, err := h.do(ctx, http.MethodGet, nil, func(r *http.Request) {
			if lastID != "" {
				r.Header.Set("Last-Event-ID", lastID)
			}
		})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if isRedirect(err) {
				h.logger.Warn("client: the server's GET stream is elsewhere; the session goes on without it", "err", err)
				return
			}
			failures++
			if failures > maxResumes {
				h.logger.Warn("client: giving up on the server's GET stream", "err", err)
				return
			}
			if wait(ctx, retry*time.Duration(failures)) != nil {
				return
			}
			continue
		}
		if resp.StatusCode != http.StatusOK || !isSSE(resp) {
			drain(resp) // 405: the server offers no stream
			return
		}
		answered()
		failures = 0
		sr := newSSEReader(resp.Body, h.max)
		sr.lastID = lastID
		for {
			data, err := sr.next()
			if err != nil {
				break
			}
			if len(bytes.TrimSpace(data)) > 0 && !h.routeResponse(data) {
				h.incoming(nil, data)
			}
		}
		resp.Body.Close()
		lastID, retry = sr.lastID, sr.retry
		if wait(ctx, retry) != nil {
			return
		}
	}
}

func (h *httpTransport) ready(ctx context.Context) error {
	h.mu.Lock()
	ready := h.getReady
	h.mu.Unlock()
	if ready == nil {
		return nil
	}
	// A server that holds the headers of its GET stream until it has
	// something to send must not hold the client: wait a little at most.
	t := time.NewTimer(readyWait)
	defer t.Stop()
	select {
	case <-ready:
		return nil
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *httpTransport) close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	session := h.session
	h.mu.Unlock()
	h.stopGET()
	if session == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := h.do(ctx, http.MethodDelete, nil, func(r *http.Request) {
		r.Header.Del("Accept")
		r.Header.Set("Mcp-Session-Id", session)
	})
	if err != nil {
		return err
	}
	drain(resp)
	return nil
}

// redactURL is raw as it may be written to a log or an error: its
// userinfo and the values of its query replaced, as they often carry
// credentials.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an endpoint URL that does not parse)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}
