package middleware

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
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

// A caller's entry remembers its tool's entry in the gate per tool; once
// that gate dropped the entry as idle, the caller's next call counts on
// the tool's new entry, with everyone else's, not on the dropped one.
func TestToolSlotRememberedUntilDropped(t *testing.T) {
	t.Parallel()
	x := &toolLimit{ToolLimit: ToolLimit{MaxConcurrent: 1, MaxPerSubject: 1, Key: SubjectOf, QueueWait: time.Second}}
	x.tools.shared, x.subjects.shared = &x.mu, &x.mu
	ctx := context.Background()
	call := func(who string) *sake.Request {
		return &sake.Request{Method: "tools/call", Params: &sake.Params{Name: "t"}, Identity: &sake.Identity{Subject: who}}
	}
	ok := func(context.Context, *sake.Request) (any, error) { return sake.TextResult("ok"), nil }
	if _, err := x.call(ctx, call("alice"), ok); err != nil {
		t.Fatal(err)
	}
	x.mu.Lock()
	x.tools.dropIdle()
	x.mu.Unlock()
	entered, release, finished := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		_, err := x.call(ctx, call("bob"), func(context.Context, *sake.Request) (any, error) {
			close(entered)
			<-release
			return sake.TextResult("ok"), nil
		})
		finished <- err
	}()
	<-entered
	_, err := x.call(ctx, call("alice"), ok)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeServerBusy {
		t.Errorf("a second call of a tool that runs one at a time: %v, want server busy", err)
	}
	close(release)
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	if _, err := x.call(ctx, call("alice"), ok); err != nil {
		t.Errorf("a call after the other ended: %v", err)
	}
}
