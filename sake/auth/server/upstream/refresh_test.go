package upstream

import (
	"context"
	"sync"
	"testing"
	"time"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Now()} }

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// refreshes is how many refresh grants the provider answered.
func (p *testProvider) refreshCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refreshed
}

// An upstream access token is refreshed once per lifetime, however
// short: with 5-second tokens a call does not refresh a fresh token, one
// call past its refresh point refreshes it once, and later calls use the
// new token until it in turn goes stale.
func TestShortLivedUpstreamTokenRefreshedOncePerExpiry(t *testing.T) {
	clk := newTestClock()
	h := newHarness(t, func(c *Config) { c.Now = clk.now })
	h.op.mu.Lock()
	h.op.expiresIn = 5
	h.op.mu.Unlock()
	id, err := h.identity(h.tokens()["access_token"].(string))
	if err != nil {
		t.Fatal(err)
	}
	token := func() string {
		t.Helper()
		tok, err := h.login.Token(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return tok.AccessToken
	}
	first := token()
	if n := h.op.refreshCount(); n != 0 {
		t.Fatalf("a fresh 5 s token was refreshed %d times by one call", n)
	}
	if again := token(); again != first || h.op.refreshCount() != 0 {
		t.Fatalf("a fresh 5 s token changed (%q, then %q) or was refreshed (%d)", first, again, h.op.refreshCount())
	}
	for round := 1; round <= 3; round++ {
		clk.advance(4 * time.Second) // within the last half of its life
		next := token()
		if n := h.op.refreshCount(); n != round {
			t.Fatalf("round %d: the provider saw %d refreshes after one call, want %d", round, n, round)
		}
		if next == first {
			t.Fatalf("round %d: the stale token %q was returned", round, next)
		}
		if again := token(); again != next || h.op.refreshCount() != round {
			t.Fatalf("round %d: a second call refreshed again (%q, then %q; %d refreshes)", round, next, again, h.op.refreshCount())
		}
		first = next
	}
}
