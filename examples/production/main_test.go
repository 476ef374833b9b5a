package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// syncBuffer is stderr for the tests.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// requests returns the access log's records.
func (s *syncBuffer) requests(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		if m["msg"] == "mcp request" {
			out = append(out, m)
		}
	}
	return out
}

// fakeClock stands still unless the test moves it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func start(t *testing.T, cfg config) (*app, *httptest.Server) {
	t.Helper()
	a, err := newApp(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(a.handler)
	t.Cleanup(func() {
		_ = a.shutdown(context.Background(), nil, 0)
		ts.Close()
	})
	return a, ts
}

// With -rate-limit N, the (N+1)th call in a second from one caller is an
// HTTP 429 with Retry-After, in both eras; a second later calls go through
// again. With -access-log every request is one JSON line with the method,
// the tool and the duration.
func TestRateLimitAndAccessLog(t *testing.T) {
	t.Parallel()
	for _, era := range []string{protocol.ModernVersion, protocol.LegacyVersion} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			const n = 5
			var logs syncBuffer
			clk := &fakeClock{t: time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)}
			a, ts := start(t, config{RateLimit: n, AccessLog: true, ToolTimeout: time.Minute, Log: &logs, Clock: clk.now})
			ctx := context.Background()
			c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", ts.Client()), client.ProtocolVersion(era))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for i := range n {
				if res, err := c.CallTool(ctx, "search", map[string]any{"query": "kettle"}); err != nil || res.IsError {
					t.Fatalf("call %d: %v %v", i+1, res, err)
				}
			}
			_, err = c.CallTool(ctx, "search", map[string]any{"query": "kettle"})
			var he *client.HTTPError
			if !errors.As(err, &he) || he.Status != http.StatusTooManyRequests || he.Header.Get("Retry-After") != "1" {
				t.Fatalf("call %d: %v, want HTTP 429 with Retry-After: 1", n+1, err)
			}
			if he.RPC == nil || he.RPC.Code != sake.CodeRateLimited {
				t.Errorf("the 429's JSON-RPC error: %v", he.RPC)
			}
			clk.advance(time.Second)
			if _, err := c.CallTool(ctx, "search", map[string]any{"query": "kettle"}); err != nil {
				t.Fatalf("a second later: %v", err)
			}
			if err := a.sink.Flush(); err != nil {
				t.Fatal(err)
			}
			var calls int
			recs := logs.requests(t)
			for _, r := range recs {
				if _, ok := r["duration"]; !ok || r["method"] == nil {
					t.Errorf("record without method or duration: %v", r)
				}
				if r["method"] == "tools/call" {
					calls++
					if r["component"] != "search" {
						t.Errorf("tools/call record: %v", r)
					}
				}
			}
			if calls != n+2 {
				t.Errorf("%d tools/call records for %d calls: %v", calls, n+2, recs)
			}
		})
	}
}

// /healthz and /readyz answer 200; once shutdown begins /readyz answers
// 503 while a call under way finishes.
func TestReadyzDuringShutdown(t *testing.T) {
	t.Parallel()
	a, ts := start(t, config{ToolTimeout: time.Hour, Log: &syncBuffer{}})
	get := func(path string) int {
		resp, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if get("/healthz") != http.StatusOK || get("/readyz") != http.StatusOK {
		t.Fatal("probes before shutdown")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", ts.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	call := make(chan error, 1)
	go func() { _, err := c.CallTool(ctx, "report", map[string]any{"seconds": 3600}); call <- err }()
	stopped := make(chan error, 1)
	go func() { stopped <- a.shutdown(context.Background(), nil, 0) }()
	deadline := time.Now().Add(10 * time.Second)
	for get("/readyz") != http.StatusServiceUnavailable {
		if time.Now().After(deadline) {
			t.Fatal("/readyz never answered 503")
		}
	}
	if get("/healthz") != http.StatusOK {
		t.Error("/healthz during shutdown")
	}
	cancel() // the call under way ends; shutdown completes
	<-call
	if err := <-stopped; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// A call that outlasts -tool-timeout is stopped and says so.
func TestToolTimeout(t *testing.T) {
	t.Parallel()
	_, ts := start(t, config{ToolTimeout: time.Millisecond, Log: &syncBuffer{}})
	ctx := context.Background()
	c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", ts.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "report", map[string]any{"seconds": 3600})
	var te *sake.ToolError
	if !errors.As(err, &te) || !res.IsError || !strings.Contains(res.Text(), "did not finish within 1ms") {
		t.Fatalf("report: %v %v", res, err)
	}
}

// serve shuts down gracefully when its context ends.
func TestServe(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, ln, config{RateLimit: 10, ToolTimeout: time.Minute, Log: &syncBuffer{}}, 0, time.Minute)
	}()
	c, err := client.Connect(context.Background(), client.HTTP("http://"+ln.Addr().String()+"/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.CallTool(context.Background(), "search", map[string]any{"query": "tea"}); err != nil || !strings.Contains(res.Text(), "teapot") {
		t.Fatalf("search: %v %v", res, err)
	}
	_ = c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// With a database, two replicas share each caller's rate limit, and
// /readyz fails while the database cannot be reached.
func TestPostgres(t *testing.T) {
	t.Parallel()
	url, schema := pgSchema(t)
	pool := pgPool(t, url, schema)
	clk := &fakeClock{t: time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)}
	_, ts1 := start(t, config{RateLimit: 2, ToolTimeout: time.Minute, Log: &syncBuffer{}, Clock: clk.now, Postgres: pool})
	other := pgPool(t, url, schema)
	_, ts2 := start(t, config{RateLimit: 2, ToolTimeout: time.Minute, Log: &syncBuffer{}, Clock: clk.now, Postgres: other})
	ctx := context.Background()
	var statuses []int
	for _, ts := range []*httptest.Server{ts1, ts2, ts1} {
		c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", ts.Client()))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CallTool(ctx, "search", map[string]any{"query": "tea"})
		var he *client.HTTPError
		switch {
		case err == nil:
			statuses = append(statuses, 200)
		case errors.As(err, &he):
			statuses = append(statuses, he.Status)
		default:
			t.Fatal(err)
		}
		_ = c.Close()
	}
	if statuses[0] != 200 || statuses[1] != 200 || statuses[2] != http.StatusTooManyRequests {
		t.Errorf("calls on replicas 1, 2, 1: %v, want 200 200 429", statuses)
	}
	other.Close()
	resp, err := ts2.Client().Get(ts2.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz without its database: %d", resp.StatusCode)
	}
}

// pgSchema makes a schema of its own for t in the cluster SAKE_POSTGRES_URL
// names, or skips t.
func pgSchema(t *testing.T) (url, schema string) {
	t.Helper()
	url = os.Getenv("SAKE_POSTGRES_URL")
	if url == "" {
		t.Skip("SAKE_POSTGRES_URL is unset: run `eval \"$(scripts/postgres.sh start)\"` for a throwaway PostgreSQL cluster")
	}
	schema = fmt.Sprintf("production_%d", time.Now().UnixNano())
	admin, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	return url, schema
}

// pgPool opens a pool on schema, closed when t ends.
func pgPool(t *testing.T, url, schema string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
