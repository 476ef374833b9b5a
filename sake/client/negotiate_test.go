package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// olderServer answers server/discover the way a handshake-only server
// does (with body), and passes everything else to a sake server.
func olderServer(t *testing.T, status int, body string) string {
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if bytes.Contains(b, []byte(`"server/discover"`)) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(body))
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); h.Close() })
	return ts.URL
}

func TestFallsBackToTheHandshake(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, version string
		status              int
	}{
		{"no session", `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: no valid session"}}`, protocol.LegacyVersion, 400},
		{"empty 404", ``, protocol.LegacyVersion, 404},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported","data":{"supported":["2025-03-26"],"requested":"2026-07-28"}}}`, "2025-03-26", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := olderServer(t, tc.status, tc.body)
			c, err := client.Connect(t.Context(), client.HTTP(url, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if info := c.Info(); info.Era != protocol.EraLegacy || info.ProtocolVersion != tc.version {
				t.Fatalf("info = %+v", info)
			}
			if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "old"}); err != nil || res.Text() != "old" {
				t.Fatalf("echo = %v, %v", res, err)
			}
		})
	}
}

func TestRefusedConnections(t *testing.T) {
	t.Parallel()
	// A pinned modern era does not fall back.
	url := olderServer(t, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}`)
	_, err := client.Connect(t.Context(), client.HTTP(url, nil), client.ProtocolVersion(protocol.ModernVersion))
	var he *client.HTTPError
	if !errors.As(err, &he) || he.Status != 400 || he.RPC == nil || he.RPC.Code != -32000 {
		t.Fatalf("pinned modern against an older server: %v", err)
	}
	// No versions in common.
	url = olderServer(t, 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported","data":{"supported":["2030-01-01"],"requested":"2026-07-28"}}}`)
	if _, err := client.Connect(t.Context(), client.HTTP(url, nil)); !isCode(err, protocol.CodeUnsupportedProtocolVersion) {
		t.Fatalf("no common version: %v", err)
	}
	// A version this client does not speak.
	if _, err := client.Connect(t.Context(), client.HTTP(url, nil), client.ProtocolVersion("1999-01-01")); err == nil {
		t.Fatal("an unknown pinned version was accepted")
	}
	// Nothing listens: the error says so, with no fallback.
	ts := httptest.NewServer(http.NotFoundHandler())
	dead := ts.URL
	ts.Close()
	if _, err := client.Connect(t.Context(), client.HTTP(dead, nil)); err == nil || errors.As(err, &he) {
		t.Fatalf("unreachable server: %v", err)
	}
	// A server that is not MCP at all answers the handshake with HTTP 500.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer broken.Close()
	_, err = client.Connect(t.Context(), client.HTTP(broken.URL, nil))
	if !errors.As(err, &he) || he.Status != 500 {
		t.Fatalf("broken server: %v", err)
	}
}

func TestChallengeWithoutAuthorizer(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="http://x/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusForbidden)
	}))
	defer ts.Close()
	_, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil), client.ProtocolVersion(protocol.ModernVersion))
	var se *protocol.InsufficientScopeError
	if !errors.As(err, &se) || len(se.Scopes) != 2 || se.Challenge == "" {
		t.Fatalf("challenge = %v", err)
	}
}

func TestParseChallenge(t *testing.T) {
	t.Parallel()
	ch := client.ParseChallenge(`Basic realm="x", Bearer realm="mcp", error="insufficient_user_authentication", error_description="sign in again", acr_values="urn:mfa phr", max_age=300, resource_metadata="https://a/b"`)
	if ch.Scheme != "Bearer" || ch.Error != "insufficient_user_authentication" || len(ch.ACRValues) != 2 ||
		ch.MaxAge == nil || ch.MaxAge.Seconds() != 300 || ch.ResourceMetadata != "https://a/b" || ch.Params["realm"] != "mcp" {
		t.Fatalf("challenge = %+v", ch)
	}
	if ch := client.ParseChallenge(`Bearer`); ch.Scheme != "Bearer" || ch.Error != "" {
		t.Fatalf("bare = %+v", ch)
	}
	if ch := client.ParseChallenge(``); ch.Scheme != "" {
		t.Fatalf("empty = %+v", ch)
	}
	if ch := client.ParseChallenge(`Bearer error="a\"b", scope=x`); ch.Error != `a"b` || ch.Scopes[0] != "x" {
		t.Fatalf("escaped = %+v", ch)
	}
}

// A server without the logging capability (every Python SDK 1.x server)
// is not sent logging/setLevel, and one that declares it but refuses the
// level still connects: the level is a wish, not a condition.
func TestLogLevelWithoutLoggingCapability(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		wire     *pyWire
		setLevel int
	}{
		{"undeclared", &pyWire{}, 0},
		{"declared but refused", &pyWire{Logging: true, SetLevelCode: protocol.CodeInternalError}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newKitServer(t)
			logs := &warnings{}
			c, err := client.Connect(t.Context(), tc.wire.Transport(t, srv), client.LogLevel(protocol.LevelDebug), client.Logger(slog.New(logs)))
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer c.Close()
			if info := c.Info(); info.Era != protocol.EraLegacy || info.ProtocolVersion != "2025-06-18" || info.HasCapability("logging") != tc.wire.Logging {
				t.Fatalf("info = %+v", info)
			}
			if n := tc.wire.Sent("logging/setLevel"); n != tc.setLevel {
				t.Errorf("logging/setLevel sent %d times, want %d", n, tc.setLevel)
			}
			if got := logs.joined(); tc.setLevel > 0 && !strings.Contains(got, "logging/setLevel") {
				t.Errorf("the refused level went unreported: %q", got)
			}
			if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "py"}); err != nil || res.Text() != "py" {
				t.Fatalf("echo = %v, %v", res, err)
			}
		})
	}
}

// warnings is a slog handler that keeps the warnings' messages and
// attributes.
type warnings struct {
	mu  sync.Mutex
	got []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	s := r.Message
	r.Attrs(func(a slog.Attr) bool {
		s += " " + a.Key + "=" + a.Value.String()
		return true
	})
	w.mu.Lock()
	w.got = append(w.got, s)
	w.mu.Unlock()
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) joined() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.got, "\n")
}

// A new session that refuses a resource subscription the old one took
// still serves: the call that found the session gone goes through.
func TestNewSessionRefusingASubscription(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	var forget atomic.Bool
	var subscribes atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if forget.CompareAndSwap(true, false) {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(b, &m) == nil && m.Method == "resources/subscribe" && subscribes.Add(1) > 1 {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(pyError(m.ID, protocol.CodeInvalidParams, "no subscriptions in this session"))
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); h.Close() })
	c, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil), client.ProtocolVersion(protocol.LegacyVersion))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sub, err := c.Listen(t.Context(), client.Filter{Resources: []string{"kit://readme"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	forget.Store(true)
	if tools, err := c.ListTools(t.Context()); err != nil || len(tools) == 0 {
		t.Fatalf("after a lost session = %d tools, %v", len(tools), err)
	}
	if n := subscribes.Load(); n != 2 {
		t.Errorf("resources/subscribe sent %d times, want once per session", n)
	}
}
