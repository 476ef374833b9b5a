package plug

import (
	"context"
	"sync"
	"time"
)

// postContext is the context of a request without a session. It ends
// when the request's own context ends (the client went away) or when
// cancel is called (Close, for a request whose answer became a stream).
//
// Most requests are answered before anyone waits on their context, so
// the cancelable context that merges both is made only when first needed:
// when Done is called, or anything is asked once it was cancelled. Until
// then Err and Value ask the request's context, which ends exactly when
// the merged one would.
type postContext struct {
	parent context.Context

	mu        sync.Mutex
	inner     context.Context // the merged context, once made
	stop      context.CancelFunc
	cancelled bool // cancel or release was called
}

func (c *postContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Done makes the merged context, so that whoever waits is woken by
// either end.
func (c *postContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mergedLocked().Done()
}

func (c *postContext) Err() error {
	if inner := c.made(); inner != nil {
		return inner.Err()
	}
	return c.parent.Err()
}

// Value asks the merged context once it exists: the context package finds
// the cancelable context to attach children to through Value, and it must
// be the one whose Done it handed out.
func (c *postContext) Value(key any) any {
	if inner := c.made(); inner != nil {
		return inner.Value(key)
	}
	return c.parent.Value(key)
}

// made returns the merged context if it was made or must be now (the
// context was cancelled), else nil.
func (c *postContext) made() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inner == nil && !c.cancelled {
		return nil
	}
	return c.mergedLocked()
}

func (c *postContext) mergedLocked() context.Context {
	if c.inner == nil {
		c.inner, c.stop = context.WithCancel(c.parent)
		if c.cancelled {
			c.stop()
		}
	}
	return c.inner
}

// cancel ends the context and whatever runs under it.
func (c *postContext) cancel() {
	c.mu.Lock()
	c.cancelled = true
	c.mergedLocked()
	stop := c.stop
	c.mu.Unlock()
	stop()
}

// release ends the context once the request is answered, as cancel does,
// but makes no merged context when none was made: a request that never
// needed one costs nothing, and whatever asks after the end gets a
// context that has ended.
func (c *postContext) release() {
	c.mu.Lock()
	c.cancelled = true
	stop := c.stop
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}
