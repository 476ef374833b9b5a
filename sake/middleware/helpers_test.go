package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// tools is the test server.
type tools struct{}

type textArgs struct {
	Text string `json:"text"`
}

func (tools) Echo(ctx *sake.Context, a textArgs) (string, error)   { return a.Text, nil }
func (tools) Search(ctx *sake.Context, a textArgs) (string, error) { return "found " + a.Text, nil }
func (tools) Fetch(ctx *sake.Context, a textArgs) (string, error)  { return "fetched " + a.Text, nil }

var quiet = slog.New(slog.DiscardHandler)

// clock is a clock the test moves on by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rpcError is the JSON-RPC error in err, or fails the test.
func rpcError(t *testing.T, err error) *sake.Error {
	t.Helper()
	var e *sake.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return e
}

// retryMs is data.retryAfterMs of a decoded error.
func retryMs(t *testing.T, e *sake.Error) int64 {
	t.Helper()
	b, _ := json.Marshal(e.Data)
	var d protocol.RetryData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("error data %s: %v", b, err)
	}
	return d.RetryAfterMs
}

// byHeader identifies the caller over HTTP from X-Test-User (a person) or
// X-Test-Client (a machine client); neither is an anonymous caller.
func byHeader(r *http.Request) (*sake.Identity, error) {
	if u := r.Header.Get("X-Test-User"); u != "" {
		return &sake.Identity{Subject: u, ClientID: "app"}, nil
	}
	if c := r.Header.Get("X-Test-Client"); c != "" {
		return &sake.Identity{ClientID: c}, nil
	}
	return nil, nil
}

// endpoint is a plug.Handler for srv, identifying callers by byHeader.
func endpoint(t *testing.T, srv *sake.Server) *plug.Handler {
	t.Helper()
	h := plug.New(srv, plug.Identify(byHeader), plug.Logger(quiet))
	t.Cleanup(h.Close)
	return h
}

// httpCaller posts JSON-RPC messages to a handler in process, as one
// caller of one era.
type httpCaller struct {
	t       *testing.T
	h       http.Handler
	era     string
	addr    string // remote address
	user    string
	session string
	id      int
}

func newHTTPCaller(t *testing.T, h http.Handler, era, addr, user string) *httpCaller {
	c := &httpCaller{t: t, h: h, era: era, addr: addr, user: user}
	if era != protocol.ModernVersion {
		resp := c.post("initialize", "", `{"protocolVersion":"`+era+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
		if resp.Code != http.StatusOK {
			t.Fatalf("initialize: %d %s", resp.Code, resp.Body)
		}
		c.session = resp.Header().Get("Mcp-Session-Id")
		if r := c.post("notifications/initialized", "", `{}`); r.Code != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", r.Code, r.Body)
		}
	}
	return c
}

// call posts a tools/call.
func (c *httpCaller) call(tool string) *httptest.ResponseRecorder {
	return c.post("tools/call", tool, `{"name":"`+tool+`","arguments":{"text":"x"}}`)
}

func (c *httpCaller) post(method, name, params string) *httptest.ResponseRecorder {
	c.t.Helper()
	c.id++
	return c.postAs(c.id, method, name, params)
}

// postAs posts with the given request id, from any goroutine.
func (c *httpCaller) postAs(id int, method, name, params string) *httptest.ResponseRecorder {
	if c.era == protocol.ModernVersion {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		if params == "{}" {
			params = "{" + meta + "}"
		} else {
			params = "{" + meta + "," + params[1:]
		}
	}
	var body string
	if strings.HasPrefix(method, "notifications/") {
		body = `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
	} else {
		body = `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `","params":` + params + `}`
	}
	r := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	r.RemoteAddr = c.addr + ":4711"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if c.user != "" {
		r.Header.Set("X-Test-User", c.user)
	}
	if c.era == protocol.ModernVersion {
		r.Header.Set("MCP-Protocol-Version", protocol.ModernVersion)
		r.Header.Set("Mcp-Method", method)
		if name != "" {
			r.Header.Set("Mcp-Name", name)
		}
	} else if c.session != "" {
		r.Header.Set("MCP-Protocol-Version", c.era)
		r.Header.Set("Mcp-Session-Id", c.session)
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, r)
	return w
}

// rpcOf decodes the JSON-RPC error of a response body, nil for a result.
func rpcOf(t *testing.T, body []byte) *sake.Error {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *sake.Error     `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return env.Error
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

var eras = []string{protocol.ModernVersion, protocol.LegacyVersion}
