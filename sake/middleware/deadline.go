package middleware

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// watchdog ends the contexts of the calls of one ToolLimit when their
// timeout passes. Every call of a limit has the same timeout, so the calls'
// deadlines come in the order the calls start: a queue, watched by one
// goroutine with one timer, costs a call no timer of its own. The goroutine
// runs only while calls do.
type watchdog struct {
	timeout time.Duration

	mu      sync.Mutex
	queue   []*deadlineCtx // by deadline; finished calls are dropped from the front
	head    int
	running bool
	kick    chan struct{} // wakes the goroutine when the front changes
}

// deadlineCtx is a call's context: it ends at its deadline, with
// context.DeadlineExceeded, or when the request's context ends.
type deadlineCtx struct {
	context.Context // a cancelable child of the request's context
	cancel          context.CancelCauseFunc
	deadline        time.Time
	timedOut        atomic.Bool
	done            bool // the call returned (under the watchdog's mu)
}

// Deadline reports the earlier of the call's deadline and its request's.
func (c *deadlineCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

// Err is context.DeadlineExceeded once the deadline passed.
func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && c.timedOut.Load() {
		return context.DeadlineExceeded
	}
	return err
}

// start returns the context of a call starting now.
func (w *watchdog) start(ctx context.Context) *deadlineCtx {
	cctx, cancel := context.WithCancelCause(ctx)
	c := &deadlineCtx{Context: cctx, cancel: cancel, deadline: time.Now().Add(w.timeout)}
	w.mu.Lock()
	w.queue = append(w.queue, c)
	if !w.running {
		w.running = true
		if w.kick == nil {
			w.kick = make(chan struct{}, 1)
		}
		go w.watch()
	}
	w.mu.Unlock()
	return c
}

// finish says the call returned.
func (w *watchdog) finish(c *deadlineCtx) {
	w.mu.Lock()
	c.done = true
	front := w.head < len(w.queue) && w.queue[w.head] == c
	w.mu.Unlock()
	c.cancel(context.Canceled)
	if front {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// watch cancels the calls whose deadline passed, until none runs.
func (w *watchdog) watch() {
	// The goroutine outlives the call that started it: it carries none
	// of that call's profiler labels.
	pprof.SetGoroutineLabels(context.Background())
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		w.mu.Lock()
		now := time.Now()
		for w.head < len(w.queue) {
			c := w.queue[w.head]
			if !c.done && now.Before(c.deadline) {
				break
			}
			w.queue[w.head] = nil
			w.head++
			if !c.done {
				c.timedOut.Store(true)
				c.cancel(context.DeadlineExceeded)
			}
		}
		if w.head == len(w.queue) {
			w.queue, w.head, w.running = w.queue[:0], 0, false
			w.mu.Unlock()
			return
		}
		if w.head > len(w.queue)/2 && w.head > 64 { // reclaim the front
			n := copy(w.queue, w.queue[w.head:])
			clear(w.queue[n:])
			w.queue, w.head = w.queue[:n], 0
		}
		wait := w.queue[w.head].deadline.Sub(now)
		w.mu.Unlock()
		// Reset and Stop leave no stale value in timer.C (Go 1.23 and
		// later).
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-w.kick:
			timer.Stop()
		}
	}
}
