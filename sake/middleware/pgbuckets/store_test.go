package pgbuckets_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/middleware/pgbuckets"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type tools struct{}

type textArgs struct {
	Text string `json:"text"`
}

func (tools) Echo(ctx *sake.Context, a textArgs) (string, error) { return a.Text, nil }

var quiet = slog.New(slog.DiscardHandler)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// replica is one server process on the shared database.
func replica(t *testing.T, store middleware.BucketStore, clk *clock, opts ...middleware.Option) *sake.Server {
	t.Helper()
	rl, err := middleware.NewRateLimiter([]middleware.Limit{{Rate: 10, Methods: []string{"tools/call"}}},
		append([]middleware.Option{middleware.Store(store), middleware.Clock(clk.Now), middleware.Logger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return sake.MustNew(tools{}, sake.Use(rl.Middleware()), sake.Logger(quiet))
}

func call(t *testing.T, c *saketest.Client) error {
	t.Helper()
	_, err := c.CallTool("echo", map[string]any{"text": "x"})
	return err
}

func refused(err error) bool {
	var e *sake.Error
	return errors.As(err, &e) && e.Code == sake.CodeRateLimited
}

// Two replicas on one database share one caller's bucket, in both eras:
// 5 calls on each, then the 11th is refused on either; another caller is
// unaffected; after the refill a call goes through.
func TestReplicasShareABucket(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		url, schema, pool := pgtest.Schema(t)
		ctx := context.Background()
		a, err := pgbuckets.New(ctx, pool, pgbuckets.LeaseTokens(1))
		if err != nil {
			t.Fatal(err)
		}
		b, err := pgbuckets.New(ctx, pgtest.Pool(t, url, schema), pgbuckets.LeaseTokens(1))
		if err != nil {
			t.Fatal(err)
		}
		clk := &clock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
		alice := func(s *sake.Server) *saketest.Client {
			return saketest.Connect(t, s, append(opts, saketest.Scopes(), saketest.Subject("alice"))...)
		}
		ra, rb := replica(t, a, clk), replica(t, b, clk)
		onA, onB := alice(ra), alice(rb)
		for i := range 5 {
			if err := call(t, onA); err != nil {
				t.Fatalf("call %d on A: %v", i+1, err)
			}
			if err := call(t, onB); err != nil {
				t.Fatalf("call %d on B: %v", i+1, err)
			}
		}
		if err := call(t, onA); !refused(err) {
			t.Fatalf("11th call on A: %v, want refused", err)
		}
		if err := call(t, onB); !refused(err) {
			t.Fatalf("11th call on B: %v, want refused", err)
		}
		bob := saketest.Connect(t, rb, append(opts, saketest.Scopes(), saketest.Subject("bob"))...)
		if err := call(t, bob); err != nil {
			t.Errorf("another caller: %v", err)
		}
		clk.Advance(100 * time.Millisecond)
		if err := call(t, onB); err != nil {
			t.Fatalf("after the refill: %v", err)
		}
	})
}

// A lease of 5 tokens costs one statement per 5 calls: the shared bucket
// moves by 5 at the first call and not again until the sixth.
func TestLeaseSpendsLocally(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s, err := pgbuckets.New(ctx, pool, pgbuckets.LeaseTokens(5))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	key := middleware.BucketKey{Limit: "calls", Subject: middleware.Subject{Kind: middleware.SubjectUser, ID: "alice"}}
	r := middleware.Rate{Interval: 100 * time.Millisecond, Burst: 10}
	fullAt := func() time.Duration {
		var ns int64
		if err := pool.QueryRow(ctx, `SELECT full_at FROM sake_rate_buckets WHERE subject = 'sub:alice'`).Scan(&ns); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ns - now.UnixNano())
	}
	for i := range 5 {
		if w, err := s.Take(ctx, key, r, now); err != nil || w != 0 {
			t.Fatalf("take %d: %v %v", i+1, w, err)
		}
		if got := fullAt(); got != 500*time.Millisecond {
			t.Fatalf("after take %d the shared bucket is full in %v, want 500ms (one lease of 5)", i+1, got)
		}
	}
	if w, err := s.Take(ctx, key, r, now); err != nil || w != 0 {
		t.Fatalf("take 6: %v %v", w, err)
	}
	if got := fullAt(); got != time.Second {
		t.Fatalf("after take 6: %v, want 1s (a second lease)", got)
	}
	// The bucket is empty: the next lease takes nothing and says when.
	if w, err := s.Take(ctx, key, r, now.Add(2*time.Second)); err != nil || w != 0 {
		t.Fatalf("after two seconds: %v %v", w, err)
	}
	// Sweep deletes buckets that are full again.
	if n, err := s.Sweep(ctx, now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
}

// An empty shared bucket refuses with the delay until its next token.
func TestEmptyBucketWait(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s, err := pgbuckets.New(ctx, pool, pgbuckets.LeaseTokens(10))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	key := middleware.BucketKey{Limit: "calls", Subject: middleware.Subject{Kind: middleware.SubjectClient, ID: "bot"}}
	r := middleware.Rate{Interval: 100 * time.Millisecond, Burst: 10}
	for i := range 10 {
		if w, _ := s.Take(ctx, key, r, now); w != 0 {
			t.Fatalf("take %d refused", i+1)
		}
	}
	if w, err := s.Take(ctx, key, r, now); err != nil || w != 100*time.Millisecond {
		t.Fatalf("11th: wait %v %v, want 100ms", w, err)
	}
}

// When the database cannot be reached the limiter fails closed, with
// CodeServerBusy, or open with FailOpen.
func TestDatabaseDown(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s, err := pgbuckets.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	clk := &clock{t: time.Now()}
	closed := saketest.Connect(t, replica(t, s, clk))
	var e *sake.Error
	if err := call(t, closed); !errors.As(err, &e) || e.Code != sake.CodeServerBusy {
		t.Errorf("fail closed: %v", err)
	}
	open := saketest.Connect(t, replica(t, s, clk, middleware.FailOpen()))
	if err := call(t, open); err != nil {
		t.Errorf("fail open: %v", err)
	}
}
