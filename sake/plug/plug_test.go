package plug_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

func TestModernToolsCall(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	body, hdr := modernCall("hi")
	r := readJSON(t, do(t, ts, http.MethodPost, body, hdr), http.StatusOK)
	var res struct {
		ResultType string `json:"resultType"`
		Content    []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.ResultType != "complete" || len(res.Content) != 1 || res.Content[0].Text != "hi" {
		t.Fatalf("result %s", r.Result)
	}
}

func TestModernValidationStatuses(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + modernMeta + `,"name":"` + name + `","arguments":{"text":"x"}}}`
	}
	tests := []struct {
		name   string
		body   string
		edit   func(http.Header)
		status int
		code   int
	}{
		{"missing MCP-Protocol-Version", call("echo"), func(h http.Header) { h.Del("MCP-Protocol-Version") }, 400, sake.CodeHeaderMismatch},
		{"Mcp-Name mismatch", call("echo"), func(h http.Header) { h.Set("Mcp-Name", "other") }, 400, sake.CodeHeaderMismatch},
		{"Mcp-Method value case", call("echo"), func(h http.Header) { h.Set("Mcp-Method", "TOOLS/CALL") }, 400, sake.CodeHeaderMismatch},
		{"missing Mcp-Method", call("echo"), func(h http.Header) { h.Del("Mcp-Method") }, 400, sake.CodeHeaderMismatch},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"nope/nothing","params":{` + modernMeta + `}}`,
			func(h http.Header) { h.Set("Mcp-Method", "nope/nothing"); h.Del("Mcp-Name") }, 404, sake.CodeMethodNotFound},
		{"removed method ping", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{` + modernMeta + `}}`,
			func(h http.Header) { h.Set("Mcp-Method", "ping"); h.Del("Mcp-Name") }, 404, sake.CodeMethodNotFound},
		{"missing _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, nil, 400, sake.CodeInvalidParams},
		{"unsupported version", strings.ReplaceAll(call("echo"), "2026-07-28", "v999.0.0"),
			func(h http.Header) { h.Set("MCP-Protocol-Version", "v999.0.0") }, 400, sake.CodeUnsupportedProtocolVersion},
		{"header and _meta versions differ", strings.ReplaceAll(call("echo"), "2026-07-28", "v999.0.0"), nil, 400, sake.CodeHeaderMismatch},
		{"unknown tool", call("nope"), func(h http.Header) { h.Set("Mcp-Name", "nope") }, 400, sake.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := modernHeaders("tools/call", "echo")
			if tt.edit != nil {
				tt.edit(hdr)
			}
			r := wantError(t, do(t, ts, http.MethodPost, tt.body, hdr), tt.status, tt.code)
			if string(r.ID) != "7" {
				t.Errorf("id %s, want 7", r.ID)
			}
		})
	}
}

func TestModernHeaderNamesAndValues(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	body, _ := modernCall("hi")
	tests := []struct {
		name string
		hdr  map[string]string // raw names, sent as written
	}{
		{"odd-case names and padded values", map[string]string{
			"mCp-PROTOCOL-version": " 2026-07-28 ",
			"MCP-METHOD":           "\ttools/call ",
			"mcp-name":             "  echo  ",
		}},
		{"base64 sentinel Mcp-Name", map[string]string{
			"MCP-Protocol-Version": "2026-07-28",
			"Mcp-Method":           "tools/call",
			"Mcp-Name":             "=?base64?ZWNobw==?=",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			for k, v := range tt.hdr {
				hdr[k] = []string{v} // not canonicalised: the client sends the name as written
			}
			r := readJSON(t, do(t, ts, http.MethodPost, body, hdr), http.StatusOK)
			if r.Error != nil || !strings.Contains(string(r.Result), `"hi"`) {
				t.Fatalf("got %+v %s", r.Error, r.Result)
			}
		})
	}
}

func TestModernProgressStreams(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"streamed"}}}`
	resp := do(t, ts, http.MethodPost, body, modernHeaders("tools/call", "echo"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp.Header.Get("X-Accel-Buffering") != "no" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("SSE headers %v", resp.Header)
	}
	br := bufio.NewReader(resp.Body)
	ev := mustEvent(t, br)
	if ev.hasID || ev.retry != "" {
		t.Errorf("a modern stream has no ids or priming: %+v", ev)
	}
	n := decode(t, []byte(ev.data))
	if n.Method != "notifications/progress" || !strings.Contains(string(n.Params), `"progressToken":"p1"`) {
		t.Fatalf("first event %s", ev.data)
	}
	ev = mustEvent(t, br)
	r := decode(t, []byte(ev.data))
	if string(r.ID) != "3" || !strings.Contains(string(r.Result), `"streamed"`) || !strings.Contains(string(r.Result), `"resultType":"complete"`) {
		t.Fatalf("last event %s", ev.data)
	}
	if _, err := readEvent(br); err != io.EOF {
		t.Fatalf("the stream should end after the reply, got %v", err)
	}
}

func TestAcceptJSONOnlyGetsNoStream(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"plain"}}}`
	hdr := modernHeaders("tools/call", "echo")
	hdr.Set("Accept", "application/json")
	r := readJSON(t, do(t, ts, http.MethodPost, body, hdr), http.StatusOK)
	if !strings.Contains(string(r.Result), `"plain"`) {
		t.Fatalf("result %s", r.Result)
	}
}

func TestModernDisconnectCancels(t *testing.T) {
	t.Parallel()
	w := newWaiter()
	ts, _, _ := serve(t, w)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+modernMeta+`,"name":"wait"}}`))
		req.Header = modernHeaders("tools/call", "wait")
		resp, err := ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	within(t, w.started, "the tool to start")
	cancel()
	within(t, w.cancelled, "the tool to see the cancellation")
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
}

func TestLegacySessionLifecycle(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	sid := initialize(t, ts, nil)
	for _, c := range sid {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", sid)
		}
	}
	r := readJSON(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, legacyHeaders(sid)), http.StatusOK)
	if r.Error != nil || !strings.Contains(string(r.Result), `"name":"echo"`) || strings.Contains(string(r.Result), "resultType") {
		t.Fatalf("tools/list: %+v %s", r.Error, r.Result)
	}
	// The 2025-03-26 header inside a 2025-11-25 session is accepted.
	hdr := legacyHeaders(sid)
	hdr.Set("MCP-Protocol-Version", "2025-03-26")
	if r := readJSON(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, hdr), http.StatusOK); r.Error != nil {
		t.Fatalf("ping: %+v", r.Error)
	}
	// A JSON-RPC response from the client is accepted without a body.
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":"s1","result":{}}`, legacyHeaders(sid))
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusAccepted || len(b) != 0 {
		t.Fatalf("client response: %d %q", resp.StatusCode, b)
	}

	if resp := do(t, ts, http.MethodDelete, "", legacyHeaders(sid)); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	wantError(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, legacyHeaders(sid)), http.StatusNotFound, sake.CodeInvalidRequest)
	if resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, legacyHeaders(sid)); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("notification for a deleted session: %d, want 404", resp.StatusCode)
	}
	if resp := do(t, ts, http.MethodDelete, "", legacyHeaders(sid)); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("second DELETE: %d, want 404", resp.StatusCode)
	}
}

func TestUnknownSession(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	wantError(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, legacyHeaders("no-such-session")), http.StatusNotFound, sake.CodeInvalidRequest)
	hdr := legacyHeaders("no-such-session")
	hdr.Set("Accept", "text/event-stream")
	wantError(t, do(t, ts, http.MethodGet, "", hdr), http.StatusNotFound, sake.CodeInvalidRequest)
	// A modern request ignores Mcp-Session-Id.
	body, mh := modernCall("still")
	mh.Set("Mcp-Session-Id", "no-such-session")
	if r := readJSON(t, do(t, ts, http.MethodPost, body, mh), http.StatusOK); r.Error != nil {
		t.Fatalf("modern request with a stale session id: %+v", r.Error)
	}
}

func TestGETAndDELETEWithoutSession(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		resp := do(t, ts, m, "", http.Header{"Accept": {"text/event-stream"}})
		wantError(t, resp, http.StatusMethodNotAllowed, sake.CodeInvalidRequest)
		if resp.Header.Get("Allow") == "" {
			t.Errorf("%s: no Allow header", m)
		}
	}
}

func TestGETStreamReceivesListChanged(t *testing.T) {
	t.Parallel()
	ts, _, srv := serve(t, echo{})
	sid := initialize(t, ts, nil)
	hdr := legacyHeaders(sid)
	hdr.Set("Accept", "text/event-stream")
	resp := do(t, ts, http.MethodGet, "", hdr)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	prime := mustEvent(t, br)
	if !prime.hasID || prime.retry != "1000" || prime.data != "" {
		t.Fatalf("priming event %+v", prime)
	}
	if err := srv.AddTool(sake.NewTool("added", func(ctx *sake.Context) (string, error) { return "ok", nil }).Description("added later")); err != nil {
		t.Fatal(err)
	}
	ev := mustEvent(t, br)
	if !ev.hasID || ev.id == prime.id {
		t.Errorf("event id %q after priming %q", ev.id, prime.id)
	}
	if n := decode(t, []byte(ev.data)); n.Method != "notifications/tools/list_changed" {
		t.Fatalf("event %s", ev.data)
	}
	// A GET that wants JSON only is refused.
	hdr.Set("Accept", "application/json")
	wantError(t, do(t, ts, http.MethodGet, "", hdr), http.StatusNotAcceptable, sake.CodeInvalidRequest)
}

func TestLastEventIDResumesStream(t *testing.T) {
	t.Parallel()
	w := newWaiter()
	ts, _, _ := serve(t, w)
	sid := initialize(t, ts, nil)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := doCtx(t, ctx, ts, http.MethodPost, ts.URL,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"tok"}}}`, legacyHeaders(sid))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("POST: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	prime := mustEvent(t, br)
	if !prime.hasID || prime.retry != "1000" || prime.data != "" {
		t.Fatalf("priming event %+v", prime)
	}
	progress := mustEvent(t, br)
	if !progress.hasID || decode(t, []byte(progress.data)).Method != "notifications/progress" {
		t.Fatalf("progress event %+v", progress)
	}
	// The client goes away; for a legacy request that is not a cancellation.
	cancel()
	resp.Body.Close()
	close(w.release)

	hdr := legacyHeaders(sid)
	hdr.Set("Accept", "text/event-stream")
	hdr.Set("Last-Event-ID", progress.id)
	get := do(t, ts, http.MethodGet, "", hdr)
	if get.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(get.Body)
		t.Fatalf("GET with Last-Event-ID: %d %s", get.StatusCode, b)
	}
	gr := bufio.NewReader(get.Body)
	ev := mustEvent(t, gr)
	r := decode(t, []byte(ev.data))
	if string(r.ID) != "2" || !strings.Contains(string(r.Result), "released") {
		t.Fatalf("replayed event %+v", ev)
	}
	if !ev.hasID || ev.id == progress.id {
		t.Errorf("replayed event id %q", ev.id)
	}
	if _, err := readEvent(gr); err != io.EOF {
		t.Fatalf("the resumed stream should end after the reply, got %v", err)
	}
	select {
	case <-w.cancelled:
		t.Fatal("the disconnect cancelled a legacy request")
	default:
	}

	// An id no stream issued is refused.
	hdr.Set("Last-Event-ID", "999-1")
	wantError(t, do(t, ts, http.MethodGet, "", hdr), http.StatusBadRequest, sake.CodeInvalidRequest)
}

func TestHostAndOriginProtection(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	port := ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
	tests := []struct {
		name, host, origin string
		status             int
	}{
		{"foreign Host and Origin", "evil.example.com", "http://evil.example.com", 403},
		{"foreign Host", "evil.example.com:" + port, "", 403},
		{"foreign Origin", "127.0.0.1:" + port, "http://evil.example.com", 403},
		{"foreign Origin on the same port", "127.0.0.1:" + port, "http://evil.example.com:" + port, 403},
		{"loopback Origin on another port", "127.0.0.1:" + port, "http://localhost:6274", 200},
		{"IPv6 loopback Origin on another port", "127.0.0.1:" + port, "http://[::1]:1", 200},
		{"null Origin", "127.0.0.1:" + port, "null", 403},
		{"loopback address", "127.0.0.1:" + port, "http://127.0.0.1:" + port, 200},
		{"localhost", "localhost:" + port, "http://localhost:" + port, 200},
		{"IPv6 loopback", "[::1]:" + port, "https://[::1]:" + port, 200},
		{"no Origin", "localhost", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := modernHeaders("server/discover", "")
			hdr.Set("Host", tt.host)
			if tt.origin != "" {
				hdr.Set("Origin", tt.origin)
			}
			resp := do(t, ts, http.MethodPost, discover, hdr)
			if tt.status == 403 {
				wantError(t, resp, 403, sake.CodeInvalidRequest)
			} else {
				readJSON(t, resp, tt.status)
			}
		})
	}
}

func TestAllowlists(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.AllowedHosts("mcp.example.com"), plug.AllowedOrigins("https://app.example.com"))
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
	tests := []struct {
		host, origin string
		status       int
	}{
		{"mcp.example.com", "https://app.example.com", 200},
		{"MCP.example.com:8443", "", 200},
		{"localhost", "", 403},
		{"mcp.example.com", "https://mcp.example.com", 403},
	}
	for _, tt := range tests {
		hdr := modernHeaders("server/discover", "")
		hdr.Set("Host", tt.host)
		if tt.origin != "" {
			hdr.Set("Origin", tt.origin)
		}
		if resp := do(t, ts, http.MethodPost, discover, hdr); resp.StatusCode != tt.status {
			t.Errorf("Host %q Origin %q: %d, want %d", tt.host, tt.origin, resp.StatusCode, tt.status)
		}
	}
}

func TestTransportRefusals(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.MaxBodyBytes(256))
	okBody, _ := modernCall("x")
	tests := []struct {
		name   string
		method string
		body   string
		edit   func(http.Header)
		status int
		code   int
	}{
		{"oversized body", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`, nil, 413, sake.CodeInvalidRequest},
		{"wrong Content-Type", http.MethodPost, okBody, func(h http.Header) { h.Set("Content-Type", "text/plain") }, 415, sake.CodeInvalidRequest},
		{"missing Content-Type", http.MethodPost, okBody, func(h http.Header) { h.Del("Content-Type") }, 415, sake.CodeInvalidRequest},
		{"Accept text/html", http.MethodPost, okBody, func(h http.Header) { h.Set("Accept", "text/html") }, 406, sake.CodeInvalidRequest},
		{"Accept with q=0", http.MethodPost, okBody, func(h http.Header) { h.Set("Accept", "application/json;q=0, text/event-stream;q=0") }, 406, sake.CodeInvalidRequest},
		{"PUT", http.MethodPut, okBody, nil, 405, sake.CodeInvalidRequest},
		{"garbage", http.MethodPost, `{not json`, nil, 400, sake.CodeParseError},
		{"batch", http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, sake.CodeInvalidRequest},
		{"empty body", http.MethodPost, ``, nil, 400, sake.CodeParseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := modernHeaders("tools/call", "echo")
			if tt.edit != nil {
				tt.edit(hdr)
			}
			resp := do(t, ts, tt.method, tt.body, hdr)
			wantError(t, resp, tt.status, tt.code)
			if tt.status == 405 && resp.Header.Get("Allow") != "GET, POST, DELETE" {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}
	// Content-Type parameters and a bare Accept are fine.
	hdr := modernHeaders("tools/call", "echo")
	hdr.Set("Content-Type", "application/json; charset=utf-8")
	hdr.Del("Accept")
	readJSON(t, do(t, ts, http.MethodPost, okBody, hdr), http.StatusOK)
}

func TestChiMount(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(echo{}, sake.Logger(quiet))
	h := plug.New(srv, plug.Logger(quiet))
	r := chi.NewRouter()
	r.Get("/health", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	r.Mount("/mcp", h)
	ts := httptest.NewServer(r)
	t.Cleanup(func() { h.Close(); ts.Close() })

	body, hdr := modernCall("mounted")
	resp := doCtx(t, context.Background(), ts, http.MethodPost, ts.URL+"/mcp", body, hdr)
	if r := readJSON(t, resp, http.StatusOK); !strings.Contains(string(r.Result), "mounted") {
		t.Fatalf("result %s", r.Result)
	}
	sidResp := doCtx(t, context.Background(), ts, http.MethodPost, ts.URL+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, legacyHeaders(""))
	sid := sidResp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session through chi")
	}
	if resp := doCtx(t, context.Background(), ts, http.MethodDelete, ts.URL+"/mcp", "", legacyHeaders(sid)); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE through chi: %d", resp.StatusCode)
	}
}

func TestCloseEndsGETStream(t *testing.T) {
	t.Parallel()
	ts, h, _ := serve(t, echo{})
	sid := initialize(t, ts, nil)
	hdr := legacyHeaders(sid)
	hdr.Set("Accept", "text/event-stream")
	resp := do(t, ts, http.MethodGet, "", hdr)
	br := bufio.NewReader(resp.Body)
	mustEvent(t, br) // priming: the stream is open
	h.Close()
	if _, err := readEvent(br); err == nil {
		t.Fatal("the stream is still open after Close")
	}
	h.Close() // idempotent
	body, mh := modernCall("late")
	wantError(t, do(t, ts, http.MethodPost, body, mh), http.StatusServiceUnavailable, sake.CodeInternalError)
}

func TestCloseEndsModernStream(t *testing.T) {
	t.Parallel()
	ts, h, _ := serve(t, echo{})
	body := `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"toolsListChanged":true}}}`
	resp := do(t, ts, http.MethodPost, body, modernHeaders("subscriptions/listen", ""))
	br := bufio.NewReader(resp.Body)
	ack := mustEvent(t, br)
	if decode(t, []byte(ack.data)).Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event %s", ack.data)
	}
	h.Close()
	for {
		if _, err := readEvent(br); err != nil {
			break // the stream ended
		}
	}
}

func TestCloseCancelsLegacyRequest(t *testing.T) {
	// A session's running request is cancelled by Close, through the
	// session it belongs to, and its stream ends.
	t.Parallel()
	w := newWaiter()
	ts, h, _ := serve(t, w)
	sid := initialize(t, ts, nil)
	resp := do(t, ts, http.MethodPost,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"tok"}}}`, legacyHeaders(sid))
	br := bufio.NewReader(resp.Body)
	mustEvent(t, br) // priming
	<-w.started
	h.Close()
	select {
	case <-w.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the request was not cancelled by Close")
	}
	for {
		if _, err := readEvent(br); err != nil {
			break // the stream ended
		}
	}
}

// At plug.MaxSessions the least recently used idle session makes room
// for a new one, as at the server's own limit (a session in use is never
// evicted: see TestHandlerSessionCapEvictsIdleSessions).
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.MaxSessions(1))
	first := initialize(t, ts, nil)
	second := initialize(t, ts, nil)
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, legacyHeaders(first))
	wantError(t, resp, http.StatusNotFound, sake.CodeInvalidRequest)
	resp = do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, legacyHeaders(second))
	if r := readJSON(t, resp, http.StatusOK); r.Error != nil {
		t.Fatalf("the new session: %+v", r.Error)
	}
}

type challengeError struct{}

func (challengeError) Error() string { return "a bearer token is required" }
func (challengeError) WWWAuthenticate() string {
	return `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`
}

func TestIdentify(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.Identify(func(r *http.Request) (*sake.Identity, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer alice":
			return &sake.Identity{Subject: "alice"}, nil
		case "Bearer bob":
			return &sake.Identity{Subject: "bob"}, nil
		case "":
			return nil, challengeError{}
		}
		return nil, errNoToken
	}))
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + modernMeta + `,"name":"whoami"}}`
	hdr := modernHeaders("tools/call", "whoami")
	resp := do(t, ts, http.MethodPost, call, hdr)
	r := wantError(t, resp, http.StatusUnauthorized, sake.CodeInvalidRequest)
	if r.ID == nil || string(r.ID) != "null" {
		t.Errorf("id %s, want null", r.ID)
	}
	if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
	}
	hdr.Set("Authorization", "Bearer mallory")
	wantError(t, do(t, ts, http.MethodPost, call, hdr), http.StatusUnauthorized, sake.CodeInvalidRequest)

	hdr.Set("Authorization", "Bearer alice")
	if r := readJSON(t, do(t, ts, http.MethodPost, call, hdr), http.StatusOK); !strings.Contains(string(r.Result), `"alice"`) {
		t.Fatalf("whoami: %s", r.Result)
	}
	// A session belongs to whoever created it.
	sid := initialize(t, ts, http.Header{"Authorization": {"Bearer alice"}})
	lh := legacyHeaders(sid)
	lh.Set("Authorization", "Bearer bob")
	wantError(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, lh), http.StatusNotFound, sake.CodeInvalidRequest)
	if resp := do(t, ts, http.MethodDelete, "", lh); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("bob deleted alice's session: %d", resp.StatusCode)
	}
	lh.Set("Authorization", "Bearer alice")
	if r := readJSON(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, lh), http.StatusOK); r.Error != nil {
		t.Fatalf("alice's own session: %+v", r.Error)
	}
}

func TestPanicBecomes500(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{}, plug.Identify(func(*http.Request) (*sake.Identity, error) { panic("boom") }))
	body, hdr := modernCall("x")
	wantError(t, do(t, ts, http.MethodPost, body, hdr), http.StatusInternalServerError, sake.CodeInternalError)
	// The server is still up.
	wantError(t, do(t, ts, http.MethodPost, body, hdr), http.StatusInternalServerError, sake.CodeInternalError)
}

// regional mirrors its region argument in the Mcp-Param-Region header.
type regional struct{}

type regionArgs struct {
	Region string `json:"region,omitempty" jsonschema_extras:"x-mcp-header=Region"`
	Query  string `json:"query"`
}

func (regional) Locate(ctx *sake.Context, a regionArgs) (string, error) {
	return "region=" + a.Region, nil
}

func TestParamHeaders(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, regional{})
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + modernMeta + `,"name":"locate","arguments":` + args + `}}`
	}
	tests := []struct {
		name   string
		args   string
		header map[string]string
		status int
		code   int
	}{
		{"matching", `{"region":"us-west1","query":"q"}`, map[string]string{"Mcp-Param-Region": "us-west1"}, 200, 0},
		{"odd-case name", `{"region":"us-west1","query":"q"}`, map[string]string{"mcp-param-REGION": " us-west1 "}, 200, 0},
		{"base64 value", `{"region":"us-west1","query":"q"}`, map[string]string{"Mcp-Param-Region": "=?base64?dXMtd2VzdDE=?="}, 200, 0},
		{"argument absent, no header", `{"query":"q"}`, nil, 200, 0},
		{"missing header", `{"region":"us-west1","query":"q"}`, nil, 400, sake.CodeHeaderMismatch},
		{"mismatch", `{"region":"us-west1","query":"q"}`, map[string]string{"Mcp-Param-Region": "eu-west1"}, 400, sake.CodeHeaderMismatch},
		{"bad base64", `{"region":"us-west1","query":"q"}`, map[string]string{"Mcp-Param-Region": "=?base64?dXMtd2VzdDE!?="}, 400, sake.CodeHeaderMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := modernHeaders("tools/call", "locate")
			for k, v := range tt.header {
				hdr[k] = []string{v}
			}
			resp := do(t, ts, http.MethodPost, call(tt.args), hdr)
			if tt.code != 0 {
				wantError(t, resp, tt.status, tt.code)
				return
			}
			if r := readJSON(t, resp, tt.status); r.Error != nil || !strings.Contains(string(r.Result), "region=") {
				t.Fatalf("got %+v %s", r.Error, r.Result)
			}
		})
	}
}

func TestModernRequestWithASessionIDStaysModern(t *testing.T) {
	t.Parallel()
	ts, _, _ := serve(t, echo{})
	sid := initialize(t, ts, legacyHeaders(""))
	hdr := modernHeaders("tools/call", "echo")
	hdr.Set("Mcp-Session-Id", sid)
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"streamed"}}}`
	resp := do(t, ts, http.MethodPost, body, hdr)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	for i := 0; i < 2; i++ {
		if ev := mustEvent(t, br); ev.hasID || ev.retry != "" {
			t.Errorf("a modern request got legacy framing: %+v", ev)
		}
	}
}

type poller struct{ closed chan bool }

func (p poller) Poll(ctx *sake.Context) (string, error) {
	p.closed <- ctx.CloseStream()
	return "after the reconnection", nil
}

func TestCloseStreamAndResume(t *testing.T) {
	t.Parallel()
	p := poller{closed: make(chan bool, 1)}
	ts, _, _ := serve(t, p)
	sid := initialize(t, ts, legacyHeaders(""))
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"poll"}}`, legacyHeaders(sid))
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	prime := mustEvent(t, br)
	if !prime.hasID || prime.retry == "" || prime.data != "" {
		t.Fatalf("priming event %+v", prime)
	}
	// The stream ends cleanly, without the result.
	if ev, err := readEvent(br); err != io.EOF {
		t.Fatalf("after CloseStream: %+v, %v", ev, err)
	}
	if !<-p.closed {
		t.Fatal("CloseStream reported false")
	}
	hdr := legacyHeaders(sid)
	hdr.Set("Last-Event-ID", prime.id)
	hdr.Set("Accept", "text/event-stream")
	get := do(t, ts, http.MethodGet, "", hdr)
	gr := bufio.NewReader(get.Body)
	for {
		ev := mustEvent(t, gr)
		if ev.data == "" {
			continue
		}
		r := decode(t, []byte(ev.data))
		if string(r.ID) == "7" {
			if !strings.Contains(string(r.Result), "after the reconnection") {
				t.Errorf("resumed result %s", ev.data)
			}
			break
		}
	}
	// A modern request cannot close its stream: closing it is a cancel.
	body := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"poll"}}`
	resp = do(t, ts, http.MethodPost, body, modernHeaders("tools/call", "poll"))
	if r := readJSON(t, resp, http.StatusOK); r.Error != nil || <-p.closed {
		t.Errorf("modern CloseStream: %+v", r)
	}
}
