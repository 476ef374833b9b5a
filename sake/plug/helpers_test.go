package plug_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// echo is the test server: a tool that reports progress (when the request
// asks for it) and answers its text, and one that says who called.
type echo struct{}

type echoArgs struct {
	Text string `json:"text"`
}

func (echo) Echo(ctx *sake.Context, a echoArgs) (string, error) {
	ctx.Progress(1, 2, "half")
	return a.Text, nil
}

func (echo) Whoami(ctx *sake.Context) (string, error) {
	if id := ctx.Identity(); id != nil {
		return id.Subject, nil
	}
	return "anonymous", nil
}

// waiter has a tool that reports progress, then blocks until the test
// releases it or its request is cancelled.
type waiter struct {
	once      sync.Once
	started   chan struct{}
	release   chan struct{}
	cancelled chan struct{}
}

func newWaiter() *waiter {
	return &waiter{started: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
}

func (w *waiter) Wait(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "waiting")
	w.once.Do(func() { close(w.started) })
	select {
	case <-w.release:
		return "released", nil
	case <-ctx.Done():
		close(w.cancelled)
		return "", ctx.Err()
	}
}

var quiet = slog.New(slog.DiscardHandler)

// serve starts an httptest server for impl behind a plug.Handler.
func serve(t testing.TB, impl any, opts ...plug.Option) (*httptest.Server, *plug.Handler, *sake.Server) {
	t.Helper()
	srv, err := sake.New(impl, sake.Logger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	h := plug.New(srv, append([]plug.Option{plug.Logger(quiet)}, opts...)...)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close() // ends open streams, so that ts.Close does not wait for them
		ts.Close()
	})
	return ts, h, srv
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// modernCall is a modern tools/call of echo and its headers.
func modernCall(text string) (string, http.Header) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + modernMeta +
		`,"name":"echo","arguments":{"text":"` + text + `"}}}`
	return body, modernHeaders("tools/call", "echo")
}

func modernHeaders(method, name string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return h
}

func legacyHeaders(session string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", "2025-11-25")
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	return h
}

// do sends a request and returns the response; the body is closed when the
// test ends.
func do(t testing.TB, ts *httptest.Server, method, body string, hdr http.Header) *http.Response {
	t.Helper()
	return doCtx(t, context.Background(), ts, method, ts.URL, body, hdr)
}

func doCtx(t testing.TB, ctx context.Context, ts *httptest.Server, method, url, body string, hdr http.Header) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if hs := hdr.Get("Host"); hs != "" {
		req.Host = hs
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// rpc is a decoded JSON-RPC response.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func decode(t testing.TB, b []byte) rpc {
	t.Helper()
	var r rpc
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("not JSON-RPC: %v: %s", err, b)
	}
	return r
}

// readJSON checks status and Content-Type and decodes the body.
func readJSON(t testing.TB, resp *http.Response, status int) rpc {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json; body %s", ct, b)
	}
	return decode(t, b)
}

// wantError checks an HTTP status and a JSON-RPC error code.
func wantError(t testing.TB, resp *http.Response, status, code int) rpc {
	t.Helper()
	r := readJSON(t, resp, status)
	if r.Error == nil || r.Error.Code != code {
		t.Fatalf("error %+v, want code %d", r.Error, code)
	}
	return r
}

// event is one SSE event.
type event struct {
	id, data, retry string
	hasID           bool
}

// readEvent reads the next SSE event, skipping comments.
func readEvent(br *bufio.Reader) (event, error) {
	var ev event
	var data []string
	seen := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if !seen {
				continue
			}
			ev.data = strings.Join(data, "\n")
			return ev, nil
		case strings.HasPrefix(line, ":"):
			continue
		case strings.HasPrefix(line, "id:"):
			ev.id, ev.hasID, seen = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " "), true, true
		case strings.HasPrefix(line, "retry:"):
			ev.retry, seen = strings.TrimSpace(strings.TrimPrefix(line, "retry:")), true
		case strings.HasPrefix(line, "data:"):
			data, seen = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")), true
		}
	}
}

func mustEvent(t testing.TB, br *bufio.Reader) event {
	t.Helper()
	ev, err := readEvent(br)
	if err != nil {
		t.Fatalf("reading an SSE event: %v", err)
	}
	return ev
}

// initialize runs the legacy handshake and returns the session id.
func initialize(t testing.TB, ts *httptest.Server, hdr http.Header) string {
	t.Helper()
	h := legacyHeaders("")
	for k, v := range hdr {
		h[k] = v
	}
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"plug-test","version":"1.0.0"}}}`, h)
	r := readJSON(t, resp, http.StatusOK)
	if r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	h = legacyHeaders(sid)
	for k, v := range hdr {
		h[k] = v
	}
	resp = do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, want 202", resp.StatusCode)
	}
	return sid
}

// within waits for ch, failing the test if it never comes.
func within(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

var errNoToken = errors.New("no bearer token")
