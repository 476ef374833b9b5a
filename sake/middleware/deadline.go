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
// goroutine with one timer, costs a call no timer of its own. A finishing
// call drops itself from the queue without waking the goroutine, which
// wakes only at deadlines: it ends at the first one that finds no call
// running, at most one timeout after the last call ended.
type watchdog struct {
	timeout time.Duration
	// epoch is when the watchdog was made: deadlines are kept as the
	// time since, which time.Since reads off the monotonic clock alone,
	// at half the cost of time.Now.
	epoch time.Time

	mu      sync.Mutex
	queue   []*deadlineCtx // by deadline; finished calls are dropped from the front
	head    int
	running bool
}

// deadlineCtx is a call's context: it ends at its deadline, with
// context.DeadlineExceeded, when the request's context ends, or when the
// call returns. It makes its Done channel, and starts following the
// request's context, only when someone asks for it: a call that never
// waits on its context costs one allocation and no cancelable context.
type deadlineCtx struct {
	parent   context.Context
	watch    *watchdog
	due      time.Duration // the deadline, as the time since watch.epoch
	timedOut atomic.Bool
	done     bool // the call returned (under the watchdog's mu)

	mu         sync.Mutex
	err        error         // why it ended, once it has
	ch         chan struct{} // Done, made on demand; closed when it ends
	stopParent func() bool   // stops following parent
	afters     map[*afterFunc]struct{}
}

// afterFunc is a function registered with AfterFunc.
type afterFunc struct{ f func() }

// Deadline reports the earlier of the call's deadline and its request's.
func (c *deadlineCtx) Deadline() (time.Time, bool) {
	deadline := c.watch.epoch.Add(c.due)
	if d, ok := c.parent.Deadline(); ok && d.Before(deadline) {
		return d, true
	}
	return deadline, true
}

// Value is the request context's, except the key by which the context
// package finds a cancelable ancestor: this context ends on its own, so
// context.Cause falls back to its Err and children follow its Done.
func (c *deadlineCtx) Value(key any) any {
	if key == cancelCtxKey {
		return nil
	}
	return c.parent.Value(key)
}

// Done is closed when the context ends.
func (c *deadlineCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
		if c.err == nil {
			if err := c.parent.Err(); err != nil {
				c.err = err
			} else if c.parent.Done() != nil {
				c.stopParent = context.AfterFunc(c.parent, func() { c.end(c.parent.Err()) })
			}
		}
		if c.err != nil {
			close(c.ch)
		}
	}
	return c.ch
}

// Err is context.DeadlineExceeded once the deadline passed, the request's
// error once it ended, context.Canceled once the call returned.
func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.parent.Err()
}

// AfterFunc arranges to call f in its own goroutine once the context ends,
// as context.AfterFunc does, so that contexts derived from this one need
// no goroutine to follow it.
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	c.Done() // follow the parent from now on
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if c.afters == nil {
		c.afters = map[*afterFunc]struct{}{}
	}
	c.afters[a] = struct{}{}
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.afters[a]
		delete(c.afters, a)
		return ok
	}
}

// end ends the context with err, if it has not ended yet.
func (c *deadlineCtx) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.ch != nil {
		close(c.ch)
	}
	stop, afters := c.stopParent, c.afters
	c.stopParent, c.afters = nil, nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for a := range afters {
		go a.f()
	}
}

// cancelCtxKey is the key by which the context package asks a context for
// its nearest cancelable ancestor (context.Cause and propagation to
// children ask it first): found by asking once.
var cancelCtxKey = func() any {
	var p keyProbe
	_ = context.Cause(&p)
	return p.key
}()

// keyProbe records the first key it is asked for.
type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	return nil
}

func (p *keyProbe) Err() error { return nil }

// start returns the context of a call starting now.
func (w *watchdog) start(ctx context.Context) *deadlineCtx {
	c := w.newCall(ctx)
	w.mu.Lock()
	w.enqueueLocked(c)
	w.mu.Unlock()
	return c
}

// newCall returns the context of a call starting now, not yet watched:
// made before the lock is taken, so that the lock is not held while it is
// allocated.
func (w *watchdog) newCall(ctx context.Context) *deadlineCtx {
	return &deadlineCtx{parent: ctx, watch: w, due: time.Since(w.epoch) + w.timeout}
}

// enqueueLocked starts watching c, with w.mu held. (Calls that read the
// clock in one order and take the lock in the other are queued out of
// order by as long as the lock was waited for: the later one is stopped
// that much late.)
func (w *watchdog) enqueueLocked(c *deadlineCtx) {
	w.queue = append(w.queue, c)
	if !w.running {
		w.running = true
		go w.watch()
	}
}

// finishLocked says the call returned, with w.mu held; the caller ends
// c's context after it lets go of the lock. It drops the finished calls
// from the front of the queue itself, without waking the goroutine: that
// wakes at the deadline it was waiting for, and then waits for the next
// one or, when no call runs, ends.
func (w *watchdog) finishLocked(c *deadlineCtx) {
	c.done = true
	w.dropFinished()
}

// dropFinished drops the finished calls at the front of the queue, and
// reclaims the space they took; w.mu is held.
func (w *watchdog) dropFinished() {
	for w.head < len(w.queue) && w.queue[w.head].done {
		w.queue[w.head] = nil
		w.head++
	}
	switch {
	case w.head == len(w.queue):
		w.queue, w.head = w.queue[:0], 0
	case w.head > len(w.queue)/2 && w.head > 64:
		n := copy(w.queue, w.queue[w.head:])
		clear(w.queue[n:])
		w.queue, w.head = w.queue[:n], 0
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
		now := time.Since(w.epoch)
		for w.head < len(w.queue) {
			c := w.queue[w.head]
			if !c.done && now < c.due {
				break
			}
			w.queue[w.head] = nil
			w.head++
			if !c.done {
				c.timedOut.Store(true)
				c.end(context.DeadlineExceeded)
			}
		}
		if w.head == len(w.queue) {
			w.queue, w.head, w.running = w.queue[:0], 0, false
			w.mu.Unlock()
			return
		}
		w.dropFinished()
		wait := w.queue[w.head].due - now
		w.mu.Unlock()
		// Reset leaves no stale value in timer.C (Go 1.23 and later).
		timer.Reset(wait)
		<-timer.C
	}
}
