package proxy

import (
	"context"
	"sync"
	"time"
)

// deadlines ends the forwarded calls that run past CallTimeout. A timer
// per call (context.WithTimeout) costs two allocations and the runtime's
// timer heap on every call; here one timer per proxy looks at the calls
// in flight once a tick, and only while there are some. A call therefore
// ends between CallTimeout and CallTimeout plus a tick after it started:
// the tick is a sixteenth of CallTimeout, at least a millisecond and at
// most a second. The calls looked at are at most MaxInFlight.
type deadlines struct {
	tick time.Duration

	mu    sync.Mutex
	calls map[*caller]struct{}
	timer *time.Timer
	armed bool // the timer will fire
}

func newDeadlines(timeout time.Duration) *deadlines {
	return &deadlines{tick: min(max(timeout/16, time.Millisecond), time.Second), calls: map[*caller]struct{}{}}
}

// add watches the call of cl, which ends by cl.end(errUpstreamTimeout)
// once cl.deadline has passed.
func (d *deadlines) add(cl *caller) {
	d.mu.Lock()
	d.calls[cl] = struct{}{}
	if !d.armed {
		d.armed = true
		if d.timer == nil {
			d.timer = time.AfterFunc(d.tick, d.sweep)
		} else {
			d.timer.Reset(d.tick)
		}
	}
	d.mu.Unlock()
}

// remove stops watching the call of cl.
func (d *deadlines) remove(cl *caller) {
	d.mu.Lock()
	delete(d.calls, cl)
	d.mu.Unlock()
}

// sweep ends the calls past their deadline, and fires again in a tick
// while calls remain.
func (d *deadlines) sweep() {
	now := time.Now()
	var due []context.CancelCauseFunc
	d.mu.Lock()
	for cl := range d.calls {
		if !now.Before(cl.deadline) {
			due = append(due, cl.end)
			delete(d.calls, cl)
		}
	}
	if len(d.calls) > 0 {
		d.timer.Reset(d.tick)
	} else {
		d.armed = false
	}
	d.mu.Unlock()
	for _, end := range due {
		end(errUpstreamTimeout)
	}
}
