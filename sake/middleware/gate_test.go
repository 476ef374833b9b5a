package middleware

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// waiting polls until k has n queued calls.
func (g *gate) waitQueued(t *testing.T, k slotKey, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		s := g.slots[k]
		got := 0
		if s != nil {
			got = len(s.waiters)
		}
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", got, n)
		}
		runtime.Gosched() // polling a condition that has no event
	}
}

// A call beyond the limit waits in the queue and runs when a slot frees;
// one beyond the queue is refused; a cancelled one leaves the queue; the
// gate forgets a key once its calls are over.
func TestGateQueue(t *testing.T) {
	t.Parallel()
	var g gate
	k := slotKey{tool: "t"}
	ctx := context.Background()
	if err := g.acquire(ctx, k, 1, 1, time.Hour); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- g.acquire(ctx, k, 1, 1, time.Hour) }()
	g.waitQueued(t, k, 1)
	if err := g.acquire(ctx, k, 1, 1, time.Hour); err != errNoSlot {
		t.Fatalf("beyond the queue: %v", err)
	}
	g.release(k) // hands the slot to the queued call
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- g.acquire(cctx, k, 1, 1, time.Hour) }()
	g.waitQueued(t, k, 1)
	cancel()
	if err := <-got; err != errNoSlot {
		t.Fatalf("cancelled while queued: %v", err)
	}
	g.waitQueued(t, k, 0)
	g.release(k)
	if len(g.slots) != 0 {
		t.Errorf("%d keys kept after every call ended", len(g.slots))
	}
}
