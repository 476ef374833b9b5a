package proxy

import (
	"context"
	"errors"
	"testing"
	"time"
)

// watchedCall is a call the deadlines watch, with the cause it ended
// with (nil while it runs).
func watchedCall(deadline time.Time) (*caller, context.Context) {
	ctx, end := context.WithCancelCause(context.Background())
	return &caller{end: end, deadline: deadline}, ctx
}

// TestDeadlinesEndOnlyTheCallsPastTheirs: a sweep ends every call past its
// deadline with errUpstreamTimeout, leaves the others running and
// watched, and the timer stops once no call is left.
func TestDeadlinesEndOnlyTheCallsPastTheirs(t *testing.T) {
	d := newDeadlines(time.Hour)
	if d.tick != time.Second {
		t.Fatalf("tick = %v; want at most a second", d.tick)
	}
	var past, future []context.Context
	var running []*caller
	for range 5 {
		cl, ctx := watchedCall(time.Now().Add(-time.Millisecond))
		d.add(cl)
		past = append(past, ctx)
		cl, ctx = watchedCall(time.Now().Add(time.Hour))
		d.add(cl)
		future = append(future, ctx)
		running = append(running, cl)
	}
	d.sweep()
	for i, ctx := range past {
		if !errors.Is(context.Cause(ctx), errUpstreamTimeout) {
			t.Errorf("call %d past its deadline: cause %v; want errUpstreamTimeout", i, context.Cause(ctx))
		}
	}
	for i, ctx := range future {
		if ctx.Err() != nil {
			t.Errorf("call %d before its deadline was ended: %v", i, context.Cause(ctx))
		}
	}
	d.mu.Lock()
	watched, armed := len(d.calls), d.armed
	d.mu.Unlock()
	if watched != len(running) || !armed {
		t.Fatalf("after the sweep: %d calls watched, armed %v; want %d, true", watched, armed, len(running))
	}
	for _, cl := range running {
		d.remove(cl)
	}
	d.sweep()
	d.mu.Lock()
	watched, armed = len(d.calls), d.armed
	d.mu.Unlock()
	if watched != 0 || armed {
		t.Fatalf("with no call left: %d watched, armed %v; want 0, false", watched, armed)
	}
	d.timer.Stop()
}

// TestDeadlinesTick: the tick is a sixteenth of the timeout, within a
// millisecond and a second.
func TestDeadlinesTick(t *testing.T) {
	for _, c := range []struct{ timeout, want time.Duration }{
		{time.Millisecond, time.Millisecond},
		{160 * time.Millisecond, 10 * time.Millisecond},
		{5 * time.Minute, time.Second},
	} {
		if got := newDeadlines(c.timeout).tick; got != c.want {
			t.Errorf("tick of %v = %v; want %v", c.timeout, got, c.want)
		}
	}
}
