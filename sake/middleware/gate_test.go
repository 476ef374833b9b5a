package middleware

import (
	"context"
	"runtime"
	"strconv"
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
// one beyond the queue is refused; a cancelled one leaves the queue.
func TestGateQueue(t *testing.T) {
	t.Parallel()
	var g gate
	k := slotKey{tool: "t"}
	ctx := context.Background()
	s, err := g.acquire(ctx, k, 1, 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { _, err := g.acquire(ctx, k, 1, 1, time.Hour); got <- err }()
	g.waitQueued(t, k, 1)
	if _, err := g.acquire(ctx, k, 1, 1, time.Hour); err != errNoSlot {
		t.Fatalf("beyond the queue: %v", err)
	}
	g.release(s) // hands the slot to the queued call
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { _, err := g.acquire(cctx, k, 1, 1, time.Hour); got <- err }()
	g.waitQueued(t, k, 1)
	cancel()
	if err := <-got; err != errNoSlot {
		t.Fatalf("cancelled while queued: %v", err)
	}
	g.waitQueued(t, k, 0)
	g.release(s)
	if s.running != 0 {
		t.Errorf("%d calls counted after every call ended", s.running)
	}
}

// A gate keeps idle keys only up to gateIdle beyond the calls in flight.
func TestGateBounded(t *testing.T) {
	t.Parallel()
	var g gate
	ctx := context.Background()
	held, err := g.acquire(ctx, slotKey{tool: "busy"}, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 * gateIdle {
		s, err := g.acquire(ctx, slotKey{tool: "t", subject: Subject{Kind: SubjectCustom, ID: strconv.Itoa(i)}}, 1, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		g.release(s)
		if n := len(g.slots); n > gateIdle {
			t.Fatalf("%d keys kept", n)
		}
	}
	if _, err := g.acquire(ctx, slotKey{tool: "busy"}, 1, 0, 0); err != errNoSlot {
		t.Errorf("a running call's slot was dropped: %v", err)
	}
	g.release(held)
}
