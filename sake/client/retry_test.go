package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// A rate-limited list is tried again after the delay of the error's data,
// on every transport and in both eras.
func TestRetryWaitsTheDelayTheServerAsks(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era sake.Era, opts []client.Option) {
		g := newGate()
		srv := newShelf(t, g)
		s := &sleeps{}
		c := connect(t, tr, srv, append(opts, client.Retry(client.RetryPolicy{Sleep: s.sleep}))...)
		g.failFirst("tools/list", 2)
		tools, err := c.ListTools(t.Context())
		if err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		if len(tools) != 3 {
			t.Fatalf("tools = %d", len(tools))
		}
		if n := g.count("tools/list"); n != 3 {
			t.Fatalf("tools/list reached the server %d times, want 3", n)
		}
		if got, want := s.all(), []time.Duration{1200 * time.Millisecond, 1200 * time.Millisecond}; !slices.Equal(got, want) {
			t.Fatalf("waits = %v, want %v", got, want)
		}
	})
}

func TestRetryAttemptsAreBounded(t *testing.T) {
	for _, tr := range transports[:2] {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			g := newGate()
			srv := newShelf(t, g)
			s := &sleeps{}
			c := connect(t, tr, srv, client.Retry(client.RetryPolicy{MaxAttempts: 3, Sleep: s.sleep}))
			g.failFirst("tools/list", 10)
			_, err := c.ListTools(t.Context())
			var rpc *sake.Error
			if !errors.As(err, &rpc) || rpc.Code != sake.CodeRateLimited {
				t.Fatalf("err = %v, want the -32029 error", err)
			}
			if !strings.Contains(err.Error(), "failed 3 times") {
				t.Fatalf("err = %v, want it to say how many tries", err)
			}
			if n := g.count("tools/list"); n != 3 {
				t.Fatalf("tools/list reached the server %d times, want 3", n)
			}
			if n := len(s.all()); n != 2 {
				t.Fatalf("waits = %d, want 2", n)
			}
		})
	}
}

// Without the Retry option nothing is retried.
func TestRetryOffByDefault(t *testing.T) {
	t.Parallel()
	g := newGate()
	c := connect(t, transports[0], newShelf(t, g))
	g.failFirst("tools/list", 1)
	if _, err := c.ListTools(t.Context()); err == nil {
		t.Fatal("ListTools succeeded without retrying")
	}
	if n := g.count("tools/list"); n != 1 {
		t.Fatalf("tools/list reached the server %d times, want 1", n)
	}
}

// Only tools the last tools/list described as read-only or idempotent are
// retried, unless the caller allows it for a call.
func TestRetryToolsByAnnotations(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			g := newGate()
			srv := newShelf(t, g)
			s := &sleeps{}
			c := connect(t, tr, srv, client.Retry(client.RetryPolicy{Sleep: s.sleep}))
			ctx := t.Context()

			// Before the tools are listed the client knows nothing of them.
			g.failFirst("tools/call lookup", 1)
			if _, err := c.CallTool(ctx, "lookup", nil); err == nil {
				t.Fatal("an unlisted tool was retried")
			}
			if _, err := c.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"lookup", "put"} {
				g.failFirst("tools/call "+name, 1)
				if res, err := c.CallTool(ctx, name, nil); err != nil || res.Text() == "" {
					t.Fatalf("%s: %v, %v", name, res, err)
				}
				if n := g.count("tools/call " + name); n < 2 {
					t.Fatalf("%s reached the server %d times", name, n)
				}
			}
			waits := len(s.all())

			g.failFirst("tools/call order", 1)
			_, err := c.CallTool(ctx, "order", nil)
			var rpc *sake.Error
			if !errors.As(err, &rpc) || rpc.Code != sake.CodeRateLimited {
				t.Fatalf("order: %v, want the -32029 error", err)
			}
			if n := g.count("tools/call order"); n != 1 {
				t.Fatalf("a tool that may not run twice reached the server %d times", n)
			}
			if len(s.all()) != waits {
				t.Fatal("the client waited to retry a tool that may not run twice")
			}

			g.failFirst("tools/call order", 1)
			if _, err := c.CallTool(client.AllowRetry(ctx), "order", nil); err != nil {
				t.Fatalf("order with AllowRetry: %v", err)
			}
			if n := g.count("tools/call order"); n != 3 {
				t.Fatalf("order reached the server %d times, want 3", n)
			}

			g.failFirst("tools/call lookup", 1)
			before := g.count("tools/call lookup")
			if _, err := c.CallTool(client.NoRetry(ctx), "lookup", nil); err == nil {
				t.Fatal("NoRetry retried")
			}
			if n := g.count("tools/call lookup") - before; n != 1 {
				t.Fatalf("NoRetry: %d requests", n)
			}
		})
	}
}

// flakyHTTP answers the first n POSTs of method itself, with answer, then
// hands the requests to h.
type flakyHTTP struct {
	h      http.Handler
	method string
	answer func(w http.ResponseWriter)

	mu   sync.Mutex
	left int
	seen int
}

func (f *flakyHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		if strings.Contains(string(body), `"method":"`+f.method+`"`) {
			f.mu.Lock()
			f.seen++
			fail := f.left > 0
			if fail {
				f.left--
			}
			f.mu.Unlock()
			if fail {
				f.answer(w)
				return
			}
		}
	}
	f.h.ServeHTTP(w, r)
}

func (f *flakyHTTP) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen
}

// flakyServer serves the shelf over HTTP through a flakyHTTP.
func flakyServer(t *testing.T, fails int, answer func(w http.ResponseWriter)) (*flakyHTTP, string) {
	t.Helper()
	h := plug.New(newShelf(t, newGate()))
	f := &flakyHTTP{h: h, method: "tools/list", answer: answer, left: fails}
	ts := httptest.NewServer(f)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return f, ts.URL
}

func TestRetryHTTPStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter)
		waits  []time.Duration
		fails  bool
	}{
		{"503 seconds", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}, []time.Duration{7 * time.Second, 7 * time.Second}, false},
		{"429 date", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat))
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, []time.Duration{30 * time.Second, 30 * time.Second}, false},
		{"503 without Retry-After backs off", func(w http.ResponseWriter) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}, nil, false},
		{"500 is not retried", func(w http.ResponseWriter) {
			http.Error(w, "broken", http.StatusInternalServerError)
		}, []time.Duration{}, true},
		{"stream ended without an answer", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, ": nothing yet\n\n")
		}, nil, false},
		{"connection dropped", func(w http.ResponseWriter) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, url := flakyServer(t, 2, tc.answer)
			s := &sleeps{}
			pol := client.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Sleep: s.sleep, Now: func() time.Time { return now }}
			c, err := client.Connect(t.Context(), client.HTTP(url, nil), client.Retry(pol))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.ListTools(t.Context())
			if tc.fails {
				var he *client.HTTPError
				if !errors.As(err, &he) || he.Status != http.StatusInternalServerError {
					t.Fatalf("err = %v, want the 500", err)
				}
				if n := f.count(); n != 1 {
					t.Fatalf("tools/list sent %d times, want 1", n)
				}
				if len(s.all()) != 0 {
					t.Fatalf("waits = %v", s.all())
				}
				return
			}
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			if n := f.count(); n != 3 {
				t.Fatalf("tools/list sent %d times, want 3", n)
			}
			got := s.all()
			if tc.waits != nil {
				if !slices.Equal(got, tc.waits) {
					t.Fatalf("waits = %v, want %v", got, tc.waits)
				}
				return
			}
			// Exponential backoff with jitter: the n-th wait lies between
			// half of BaseDelay·2ⁿ⁻¹ and all of it.
			if len(got) != 2 || got[0] < 50*time.Millisecond || got[0] > 100*time.Millisecond || got[1] < 100*time.Millisecond || got[1] > 200*time.Millisecond {
				t.Fatalf("waits = %v, want one in [50ms,100ms] then one in [100ms,200ms]", got)
			}
		})
	}
}

// The client never waits past the call's deadline, nor longer than
// MaxDelay: it returns the error at once instead.
func TestRetryDoesNotWaitPastTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		after    string
		maxDelay time.Duration
		deadline time.Duration
	}{
		{"deadline", "3600", 2 * time.Hour, time.Minute},
		{"MaxDelay", "60", 10 * time.Second, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, url := flakyServer(t, 1, func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", tc.after)
				http.Error(w, "busy", http.StatusServiceUnavailable)
			})
			s := &sleeps{}
			c, err := client.Connect(t.Context(), client.HTTP(url, nil), client.Retry(client.RetryPolicy{MaxDelay: tc.maxDelay, Sleep: s.sleep}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(t.Context(), tc.deadline)
			defer cancel()
			_, err = c.ListTools(ctx)
			var he *client.HTTPError
			if !errors.As(err, &he) || he.Status != http.StatusServiceUnavailable {
				t.Fatalf("err = %v, want the 503", err)
			}
			if n := f.count(); n != 1 || len(s.all()) != 0 {
				t.Fatalf("sent %d times, waited %v", n, s.all())
			}
		})
	}
}

// A context that ends while the client waits stops the retries.
func TestRetryStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	g := newGate()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := connect(t, transports[0], newShelf(t, g), client.Retry(client.RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}}))
	g.failFirst("tools/list", 5)
	_, err := c.ListTools(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var rpc *sake.Error
	if !errors.As(err, &rpc) || rpc.Code != sake.CodeRateLimited {
		t.Fatalf("err = %v, want it to carry the server's error", err)
	}
	if n := g.count("tools/list"); n != 1 {
		t.Fatalf("tools/list reached the server %d times after the context ended, want 1", n)
	}
}

// Over stdio a server whose process has ended is not retried: the client
// does not restart it.
func TestRetryNotOverADeadStream(t *testing.T) {
	t.Parallel()
	srv := newShelf(t, newGate())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = stdio.Serve(context.Background(), srv, inR, outW)
		outW.Close()
	}()
	s := &sleeps{}
	c, err := client.Connect(t.Context(), client.Stream(outR, inW), client.Retry(client.RetryPolicy{Sleep: s.sleep}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The process dies: its input and output close.
	inR.Close()
	<-done
	if _, err := c.ListTools(t.Context()); err == nil {
		t.Fatal("ListTools succeeded against a server that has ended")
	}
	if len(s.all()) != 0 {
		t.Fatalf("the client waited to retry a dead server: %v", s.all())
	}
}
