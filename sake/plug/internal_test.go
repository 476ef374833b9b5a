package plug

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

type tiny struct{}

func (tiny) Hello(ctx *sake.Context) (string, error) { return "hello", nil }

var discard = slog.New(slog.DiscardHandler)

func newTestHandler(t *testing.T, opts ...Option) *Handler {
	t.Helper()
	srv := sake.MustNew(tiny{}, sake.Logger(discard))
	h := New(srv, append([]Option{Logger(discard)}, opts...)...)
	t.Cleanup(h.Close)
	return h
}

// loopbackRequest builds a request as if it arrived on 127.0.0.1.
func loopbackRequest(method, body string, hdr map[string]string) *http.Request {
	r := httptest.NewRequest(method, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
	r.Host = "127.0.0.1:8080"
	ctx := context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	r = r.WithContext(ctx)
	r.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	return r
}

func TestAppendEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, data, want string
	}{
		{"", `{"a":1}`, "data: {\"a\":1}\n\n"},
		{"3-1", `{}`, "id: 3-1\ndata: {}\n\n"},
		{"", "a\nb\r\nc\rd", "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"", "", "data: \n\n"},
	}
	for _, tt := range tests {
		if got := string(appendEvent(nil, []byte(tt.id), []byte(tt.data))); got != tt.want {
			t.Errorf("appendEvent(%q, %q) = %q, want %q", tt.id, tt.data, got, tt.want)
		}
	}
	if got := string(appendPriming(nil, []byte("2-0"))); got != "id: 2-0\nretry: 1000\ndata: \n\n" {
		t.Errorf("priming %q", got)
	}
}

func TestEventIDs(t *testing.T) {
	t.Parallel()
	id := string(appendEventID(nil, 12, 345))
	if id != "12-345" {
		t.Fatalf("id %q", id)
	}
	if n, seq, ok := parseEventID(id); !ok || n != 12 || seq != 345 {
		t.Fatalf("parse %q: %d %d %v", id, n, seq, ok)
	}
	for _, bad := range []string{"", "-1", "1-", "a-1", "1-b", "1", "1-2-3"} {
		if _, _, ok := parseEventID(bad); ok {
			t.Errorf("parseEventID(%q) accepted", bad)
		}
	}
}

func TestSplitHostPort(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, name, port string }{
		{"localhost", "localhost", ""},
		{"localhost:80", "localhost", "80"},
		{"[::1]:3000", "::1", "3000"},
		{"[::1]", "::1", ""},
		{"::1", "::1", ""},
		{"10.0.0.1:9", "10.0.0.1", "9"},
	}
	for _, tt := range tests {
		if n, p := splitHostPort(tt.in); n != tt.name || p != tt.port {
			t.Errorf("splitHostPort(%q) = %q, %q", tt.in, n, p)
		}
	}
	for name, want := range map[string]bool{"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.9.9.9": true,
		"::1": true, "::ffff:127.0.0.1": true, "10.0.0.1": false, "evil.example.com": false, "localhost.evil.com": false, "": false} {
		if isLoopbackName(name) != want {
			t.Errorf("isLoopbackName(%q) = %v", name, !want)
		}
	}
}

func TestAcceptable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        []string
		json, sse bool
	}{
		{nil, true, true},
		{[]string{""}, true, true},
		{[]string{"*/*"}, true, true},
		{[]string{"application/json, text/event-stream"}, true, true},
		{[]string{"application/json"}, true, false},
		{[]string{"text/event-stream"}, false, true},
		{[]string{"text/html"}, false, false},
		{[]string{"text/html", "application/*;q=0.5"}, true, false},
		{[]string{"text/*"}, false, true},
		{[]string{"application/json;q=0", "text/event-stream"}, false, true},
		{[]string{"APPLICATION/JSON; charset=utf-8"}, true, false},
	}
	for _, tt := range tests {
		if j, s := acceptable(tt.in); j != tt.json || s != tt.sse {
			t.Errorf("acceptable(%q) = %v, %v; want %v, %v", tt.in, j, s, tt.json, tt.sse)
		}
	}
}

func TestStatusFor(t *testing.T) {
	t.Parallel()
	body := []byte(`{}`)
	tests := []struct {
		r    sake.Reply
		want int
	}{
		{sake.Reply{}, 202},
		{sake.Reply{Body: body, Era: sake.EraModern}, 200},
		{sake.Reply{Body: body, Era: sake.EraModern, ErrorCode: sake.CodeHeaderMismatch}, 400},
		{sake.Reply{Body: body, Era: sake.EraModern, ErrorCode: sake.CodeMissingRequiredClientCapability}, 400},
		{sake.Reply{Body: body, Era: sake.EraModern, ErrorCode: sake.CodeUnsupportedProtocolVersion}, 400},
		{sake.Reply{Body: body, Era: sake.EraModern, ErrorCode: sake.CodeInvalidParams}, 400},
		{sake.Reply{Body: body, Era: sake.EraModern, ErrorCode: sake.CodeMethodNotFound}, 404},
		{sake.Reply{Body: body, Era: sake.EraModern, ErrorCode: sake.CodeInternalError}, 200},
		{sake.Reply{Body: body, Era: sake.EraUnknown, ErrorCode: sake.CodeParseError}, 400},
		{sake.Reply{Body: body, Era: sake.EraUnknown, ErrorCode: sake.CodeInvalidRequest}, 400},
		{sake.Reply{Body: body, Era: sake.EraLegacy, ErrorCode: sake.CodeInvalidRequest, SessionNotFound: true}, 404},
		{sake.Reply{Body: body, Era: sake.EraLegacy, ErrorCode: sake.CodeMethodNotFound}, 200},
		{sake.Reply{Body: body, Era: sake.EraLegacy, ErrorCode: sake.CodeInvalidParams}, 200},
	}
	for _, tt := range tests {
		if got := statusFor(&tt.r); got != tt.want {
			t.Errorf("statusFor(%+v) = %d, want %d", tt.r, got, tt.want)
		}
	}
}

func TestChunkedBodyOverLimit(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, MaxBodyBytes(32))
	r := loopbackRequest(http.MethodPost, "", nil)
	r.Body = io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("y", 100) + `"}}`))
	r.ContentLength = -1
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", w.Code)
	}
}

func TestSweepClosesIdleSessions(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, SessionIdleTimeout(time.Minute))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, loopbackRequest(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil))
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != 200 || sid == "" {
		t.Fatalf("initialize: %d %q", w.Code, sid)
	}
	h.sweep(time.Now()) // not idle yet
	if entryFor(h, sid) == nil {
		t.Fatal("a fresh session was swept")
	}
	e := entryFor(h, sid)
	h.sweep(time.Now().Add(2 * time.Minute))
	if entryFor(h, sid) != nil || !e.sess.Closed() {
		t.Fatal("an idle session survived the sweep")
	}
	select {
	case <-e.closed:
	default:
		t.Fatal("the entry's streams were not told")
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, loopbackRequest(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": sid}))
	if w.Code != http.StatusNotFound {
		t.Fatalf("expired session: %d, want 404", w.Code)
	}
}

func TestBusySessionIsNotIdle(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, SessionIdleTimeout(time.Minute))
	sess := newSessionFor(t, h)
	e := entryFor(h, sess)
	e.busy.Add(1)
	h.sweep(time.Now().Add(time.Hour))
	if entryFor(h, sess) == nil {
		t.Fatal("a busy session was swept")
	}
	e.busy.Add(-1)
	h.sweep(time.Now().Add(time.Hour))
	if entryFor(h, sess) != nil {
		t.Fatal("an idle session survived")
	}
}

func newSessionFor(t *testing.T, h *Handler) string {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, loopbackRequest(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil))
	sid := w.Header().Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	return sid
}

func TestReplayRing(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t, ReplayBuffer(3))
	e := entryFor(h, newSessionFor(t, h))
	st := e.newStream(false)
	for i := 0; i < 5; i++ {
		if err := st.emit([]byte(`{"n":`+string(rune('0'+i))+`}`), false); err != nil {
			t.Fatal(err)
		}
	}
	g := newGetSink()
	replay, _, final, lost, ok := st.attach(g, true, 3)
	if !ok || final || lost || len(replay) != 2 {
		t.Fatalf("after 3: %d events, final %v lost %v ok %v", len(replay), final, lost, ok)
	}
	if !strings.HasPrefix(string(replay[0]), "id: 1-4\n") || !strings.HasPrefix(string(replay[1]), "id: 1-5\n") {
		t.Fatalf("replay %q", replay)
	}
	// Events 1 and 2 fell out of the ring.
	if _, _, _, lost, _ := st.attach(newGetSink(), true, 0); !lost {
		t.Fatal("lost events not reported")
	}
	if _, _, _, _, ok := st.attach(g, true, 99); ok {
		t.Fatal("an id from the future was accepted")
	}
	// Live events reach the attached sink; the final one ends the stream.
	g2 := newGetSink()
	st.attach(g2, true, 5)
	select {
	case <-g.stop:
	default:
		t.Fatal("the previous sink was not evicted")
	}
	_ = st.emit([]byte(`{"last":true}`), true)
	if f := <-g2.out; !strings.Contains(string(f), `"last"`) {
		t.Fatalf("live frame %q", f)
	}
	within(t, st.done)
	if err := st.emit([]byte(`{}`), false); err != errStreamEnded {
		t.Fatalf("emit after the end: %v", err)
	}
}

func TestStandaloneSenderWithoutSink(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t)
	e := entryFor(h, newSessionFor(t, h))
	st := e.standaloneStream()
	if st2 := e.standaloneStream(); st2 != st {
		t.Fatal("two standalone streams")
	}
	if err := st.send([]byte(`{}`)); err != transport.ErrNoStream {
		t.Fatalf("send without a GET: %v", err)
	}
	g := newGetSink()
	st.attach(g, false, 0)
	if err := transport.Send(e.sess, []byte(`{"m":1}`)); err != nil {
		t.Fatalf("session send: %v", err)
	}
	if f := <-g.out; !strings.Contains(string(f), `{"m":1}`) {
		t.Fatalf("frame %q", f)
	}
	st.detach(g)
	if err := transport.Send(e.sess, []byte(`{}`)); err != transport.ErrNoStream {
		t.Fatalf("send after detach: %v", err)
	}
}

func within(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("timed out")
	}
}

func TestHostRuleFollowsListener(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []Option
		local  net.IP
		host   string
		status int
	}{
		{"loopback listener, foreign Host", nil, net.IPv4(127, 0, 0, 1), "evil.example.com", 403},
		{"loopback listener, localhost", nil, net.IPv4(127, 0, 0, 1), "localhost:8080", 200},
		{"public listener, any Host", nil, net.IPv4(10, 0, 0, 7), "mcp.example.com", 200},
		{"wildcard allowlist", []Option{AllowedHosts("*")}, net.IPv4(127, 0, 0, 1), "evil.example.com", 200},
		{"allowlist with port", []Option{AllowedHosts("mcp.example.com:443")}, net.IPv4(10, 0, 0, 7), "mcp.example.com:8443", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newTestHandler(t, tt.opts...)
			r := loopbackRequest(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
			r.Host = tt.host
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: tt.local, Port: 8080}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
		})
	}
}

func TestGETStreamKeepAlive(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t)
	h.cfg.keepAlive = time.Millisecond
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	sid := newSessionFor(t, h)
	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a keep-alive: %v", err)
		}
		if line == ": keepalive\n" {
			return
		}
	}
}

// A session the server evicts to make room leaves the handler at once: its
// entry, its streams and its replay events go with it.
func TestEvictedSessionLeavesNoEntry(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(tiny{}, sake.Logger(discard), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 1}))
	h := New(srv, Logger(discard))
	t.Cleanup(h.Close)
	first := newSessionFor(t, h)
	e := entryFor(h, first)
	e.newStream(false).emit([]byte(`{"jsonrpc":"2.0","method":"notifications/message"}`), false)
	if h.replay.bytes.Load() == 0 {
		t.Fatal("the event was not kept for replay")
	}
	second := newSessionFor(t, h) // same address: the server evicts the first
	select {
	case <-e.closed:
	default:
		t.Fatal("the evicted session's streams were not told")
	}
	h.mu.RLock()
	_, kept := h.sessions[first]
	n := len(h.sessions)
	h.mu.RUnlock()
	if kept || n != 1 || entryFor(h, second) == nil {
		t.Fatalf("entries after the eviction: first kept %v, %d in all", kept, n)
	}
	if got := h.replay.bytes.Load(); got != 0 {
		t.Fatalf("the evicted session still holds %d replay bytes", got)
	}
}

// entryFor returns the handler's entry of an anonymous caller's session,
// or nil.
func entryFor(h *Handler, sid string) *entry {
	e, _ := h.lookup(sid, nil)
	return e
}
