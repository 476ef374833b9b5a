package interop

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func init() {
	everythingChecks = append(everythingChecks, everythingSessionChecks...)
	gosdkChecks = append(gosdkChecks, gosdkCheck{name: "pin-2026-07-28", skip: onceNegotiated, run: gosdkPinModern})
}

// records is a slog handler that keeps the messages logged to it, for a
// test to wait on.
type records struct {
	n *notes
}

func (r records) Enabled(context.Context, slog.Level) bool { return true }
func (r records) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	})
	r.n.add(protocol.Notification{Method: b.String()})
	return nil
}
func (r records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r records) WithGroup(string) slog.Handler      { return r }

// onceNegotiated runs a check that does not depend on the era once per
// transport.
func onceNegotiated(e interopEnv) string {
	if e.pin != "" {
		return "runs once per transport, beside the negotiated client"
	}
	return ""
}

var sessionID = regexp.MustCompile(`Session initialized with ID: (\S+)`)

var everythingSessionChecks = []everythingCheck{
	{"session", func(t *testing.T, ctx context.Context, _ *client.Client, env everythingEnv, _ *notes) {
		if env.server == nil {
			// Over stdio the session is the process: its standard error
			// goes to the client's logger, line by line.
			logged := newNotes()
			c := env.connect(t, client.Logger(slog.New(records{logged})))
			if _, err := logged.wait(ctx, func(x protocol.Notification) bool {
				return strings.Contains(x.Method, "Starting default (STDIO) server...")
			}); err != nil {
				t.Fatalf("the server's standard error did not reach the logger: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			return
		}
		// Over HTTP: a session of its own, its GET stream, and DELETE on
		// Close, as the server reports them.
		mark := env.server.mark()
		c := env.connect(t)
		if err := env.server.waitLine(ctx, mark, "Session initialized with ID: "); err != nil {
			t.Fatal(err)
		}
		env.server.mu.Lock()
		var id string
		for _, line := range env.server.lines[mark:] {
			if m := sessionID.FindStringSubmatch(line); m != nil {
				id = m[1]
				break
			}
		}
		env.server.mu.Unlock()
		if err := env.server.waitLine(ctx, mark, "Establishing new SSE stream for session "+id); err != nil {
			t.Fatalf("no GET stream: %v", err)
		}
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := env.server.waitLine(ctx, mark, "Received session termination request for session "+id); err != nil {
			t.Fatalf("no DELETE: %v", err)
		}
		if err := c.Ping(ctx); err == nil {
			t.Fatal("a closed client answered a ping")
		}
	}},
	{"pin-2026-07-28", func(t *testing.T, ctx context.Context, _ *client.Client, env everythingEnv, _ *notes) {
		if reason := onceNegotiated(env.interopEnv); reason != "" {
			t.Skip(reason)
		}
		// The server serves no 2026-07-28: pinned to it, the client fails
		// to connect and says why, without falling back.
		_, err := client.Connect(ctx, env.mk(), client.ProtocolVersion(protocol.ModernVersion))
		var he *client.HTTPError
		switch {
		case env.server == nil:
			wantRPCError(t, err, sake.CodeMethodNotFound, "Method not found")
		case errors.As(err, &he):
			if he.Status != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400", he.Status)
			}
		default:
			t.Fatalf("pinned to 2026-07-28: %v, want HTTP 400", err)
		}
	}},
	{"resume", func(t *testing.T, ctx context.Context, _ *client.Client, env everythingEnv, _ *notes) {
		if env.server == nil {
			t.Skip("stdio has no streams to resume")
		}
		// A proxy cuts the call's event stream after its first progress
		// event; the server keeps events (an event store), so the client
		// resumes with GET and Last-Event-ID and gets the rest.
		px := newCutProxy(t, env.url, "trigger-long-running-operation")
		srv := httptest.NewServer(px)
		t.Cleanup(srv.Close) // after the client's Close, which ends its streams
		opts := []client.Option{}
		if env.pin != "" {
			opts = append(opts, client.ProtocolVersion(env.pin))
		}
		c := connect(t, client.HTTP(srv.URL+"/mcp", nil), opts...)
		var mu sync.Mutex
		var got []float64
		pctx := client.WithProgress(ctx, func(p client.Progress) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
		})
		wantText(t, pctx, c, "trigger-long-running-operation", map[string]any{"duration": 0.6, "steps": 3},
			"Long running operation completed. Duration: 0.6 seconds, Steps: 3.")
		px.mu.Lock()
		cut, resumed := px.cut, px.resumed
		px.mu.Unlock()
		if !cut {
			t.Fatal("the proxy never cut the stream")
		}
		if len(resumed) == 0 {
			t.Fatal("the client did not resume with Last-Event-ID")
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(got, []float64{1, 2, 3}) {
			t.Fatalf("progress = %v, want each of 1, 2, 3 once", got)
		}
	}},
}

// cutProxy forwards to a server and breaks the response to the first POST
// whose body contains a string, right after an event with a progress
// notification.
type cutProxy struct {
	proxy *httputil.ReverseProxy
	match []byte

	mu      sync.Mutex
	cut     bool
	resumed []string // Last-Event-ID of the requests after the cut
}

func newCutProxy(t *testing.T, target, match string) *cutProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	return &cutProxy{proxy: httputil.NewSingleHostReverseProxy(u), match: []byte(match)}
}

func (p *cutProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	p.mu.Lock()
	cut := r.Method == http.MethodPost && !p.cut && bytes.Contains(body, p.match)
	if cut {
		p.cut = true
	}
	if id := r.Header.Get("Last-Event-ID"); id != "" && p.cut {
		p.resumed = append(p.resumed, id)
	}
	p.mu.Unlock()
	if cut {
		w = &cuttingWriter{ResponseWriter: w, on: []byte(`"notifications/progress"`)}
	}
	p.proxy.ServeHTTP(w, r)
}

// cuttingWriter aborts the response once it has written on.
type cuttingWriter struct {
	http.ResponseWriter
	on []byte
}

func (c *cuttingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	if bytes.Contains(b, c.on) {
		c.Flush()
		panic(http.ErrAbortHandler) // the server closes the connection
	}
	return n, err
}

func (c *cuttingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *cuttingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// gosdkPinModern connects pinned to 2026-07-28: it works where the server
// serves it and fails with -32022, listing what it serves, where it does
// not (with sessions).
func gosdkPinModern(t *testing.T, ctx context.Context, _ *client.Client, env interopEnv, _ *notes) {
	c, err := client.Connect(ctx, env.mk(), client.ProtocolVersion(protocol.ModernVersion))
	if env.transport == "http-stateful" {
		wantRPCError(t, err, sake.CodeUnsupportedProtocolVersion, "")
		var rpc *sake.Error
		errors.As(err, &rpc)
		if m, _ := rpc.Data.(map[string]any); m == nil || slices.Contains(m["supported"].([]any), any(protocol.ModernVersion)) {
			t.Fatalf("data = %v, want the supported handshake revisions", rpc.Data)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Era() != sake.EraModern {
		t.Fatalf("era = %v", c.Era())
	}
	wantText(t, ctx, c, "test_simple_text", nil, "This is a simple text response for testing.")
}
