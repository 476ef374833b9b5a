package middleware

import (
	"context"
	"sync"
	"time"
)

// clockTimeout is the timeout of the calls of one ToolLimit. A call's
// context keeps its deadline and reads the clock when asked whether it
// ended: a call whose tool never waits on its context's Done costs no
// timer, no goroutine and no shared state, only the context itself. A
// timer starts when the tool first asks for Done (or derives a context
// that follows this one), and stops when the call returns.
type clockTimeout struct {
	timeout time.Duration
	// epoch is when the limit was made: deadlines are kept as the
	// time since, which time.Since reads off the monotonic clock alone,
	// at half the cost of time.Now.
	epoch time.Time
}

// deadlineCtx is a call's context: it ends at its deadline, with
// context.DeadlineExceeded, when the request's context ends, or when the
// call returns. It makes its Done channel, its timer, and starts following
// the request's context, only when someone asks for Done: a call that
// never waits on its context costs one allocation.
type deadlineCtx struct {
	parent context.Context
	clock  *clockTimeout
	due    time.Duration // the deadline, as the time since clock.epoch

	mu  sync.Mutex
	err error    // why it ended, once it has
	w   *waiting // made when Done is first asked for
}

// waiting is what a call's context needs once someone waits on it: kept
// apart, so that the context of a call nobody waits on is small.
type waiting struct {
	ch         chan struct{} // Done; closed when the context ends
	timer      *time.Timer   // ends the context at the deadline
	stopParent func() bool   // stops following parent
	afters     map[*afterFunc]struct{}
}

// afterFunc is a function registered with AfterFunc.
type afterFunc struct{ f func() }

// newCall returns the context of a call starting now.
func (t *clockTimeout) newCall(ctx context.Context) *deadlineCtx {
	return &deadlineCtx{parent: ctx, clock: t, due: time.Since(t.epoch) + t.timeout}
}

// expired reports that the deadline has passed.
func (c *deadlineCtx) expired() bool { return time.Since(c.clock.epoch) >= c.due }

// Deadline reports the earlier of the call's deadline and its request's.
func (c *deadlineCtx) Deadline() (time.Time, bool) {
	deadline := c.clock.epoch.Add(c.due)
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
	if c.w != nil {
		ch := c.w.ch
		c.mu.Unlock()
		return ch
	}
	w := &waiting{ch: make(chan struct{})}
	c.w = w
	if c.err == nil {
		if err := c.parent.Err(); err != nil {
			c.err = err
		} else if left := c.due - time.Since(c.clock.epoch); left <= 0 {
			c.err = context.DeadlineExceeded
		} else {
			w.timer = time.AfterFunc(left, func() { c.end(context.DeadlineExceeded) })
			if c.parent.Done() != nil {
				w.stopParent = context.AfterFunc(c.parent, func() { c.end(c.parent.Err()) })
			}
		}
	}
	if c.err != nil {
		close(w.ch)
	}
	c.mu.Unlock()
	return w.ch
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
	if err := c.parent.Err(); err != nil {
		return err
	}
	if c.expired() {
		c.end(context.DeadlineExceeded)
		return c.Err()
	}
	return nil
}

// AfterFunc arranges to call f in its own goroutine once the context ends,
// as context.AfterFunc does, so that contexts derived from this one need
// no goroutine to follow it.
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	c.Done() // follow the deadline and the parent from now on
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	w := c.w // made by Done above
	if w.afters == nil {
		w.afters = map[*afterFunc]struct{}{}
	}
	w.afters[a] = struct{}{}
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := w.afters[a]
		delete(w.afters, a)
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
	w := c.w
	if w == nil {
		c.mu.Unlock()
		return
	}
	close(w.ch)
	timer, stop, afters := w.timer, w.stopParent, w.afters
	w.timer, w.stopParent, w.afters = nil, nil, nil
	c.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	if stop != nil {
		stop()
	}
	for a := range afters {
		go a.f()
	}
}

// finish ends the context of a call that returned, and reports whether
// the call ran past its deadline: its context ended with
// DeadlineExceeded, or the deadline passed before it returned. The clock
// is read only for a call that failed (failed), the one kind whose
// outcome a timeout changes.
func (c *deadlineCtx) finish(failed bool) (timedOut bool) {
	c.mu.Lock()
	err := c.err
	if err == nil && c.w == nil && !failed {
		// Nobody asked for Done, so no timer, no follower of the parent
		// and no AfterFunc wait on it: end it under this one lock.
		c.err = context.Canceled
		c.mu.Unlock()
		return false
	}
	c.mu.Unlock()
	timedOut = err == context.DeadlineExceeded
	if failed && err == nil && c.parent.Err() == nil {
		timedOut = c.expired()
	}
	c.end(context.Canceled)
	return timedOut
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
