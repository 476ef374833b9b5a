package middleware

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// DefaultQueueWait is how long a queued call waits for a slot by default.
const DefaultQueueWait = 10 * time.Second

// ToolLimit bounds the calls (tools/call) of some tools: how long one may
// run and how many may run at once. Limits on concurrency count each tool
// separately, whatever the number of tools named.
type ToolLimit struct {
	// Tools are the tools the limit applies to; a ToolLimit without Tools
	// applies to every tool no other ToolLimit names.
	Tools []string
	// Timeout, when positive, ends the call's context after this long.
	// The tool's code sees ctx.Done() and returns (its deferred cleanup
	// runs); the caller then gets a tool result with isError set saying
	// the tool took too long. A tool that ignores its context keeps the
	// call open until it returns, and a result it returns in the end is
	// kept. The time a legacy call waits for the client's answers counts;
	// a call that becomes a task is not limited once it is one.
	Timeout time.Duration
	// MaxConcurrent, when positive, is how many calls of one tool run at
	// once, all callers together. A call beyond it waits in the queue if
	// there is room (Queue), else it is refused with sake.CodeServerBusy
	// (HTTP 503 with Retry-After).
	MaxConcurrent int
	// MaxPerSubject, when positive, is how many calls of one tool one
	// subject (Key) runs at once. A call beyond it is refused at once
	// with sake.CodeRateLimited (HTTP 429 with Retry-After).
	MaxPerSubject int
	// Queue is how many calls of one tool may wait for a MaxConcurrent
	// slot (default 0: none wait). A call leaves the queue, refused, when
	// QueueWait passes or its request is cancelled.
	Queue int
	// QueueWait is how long a queued call waits (default
	// DefaultQueueWait, 10 seconds).
	QueueWait time.Duration
	// Key decides whose calls MaxPerSubject counts together (default
	// SubjectOf).
	Key KeyFunc
}

// concurrencyRetry is the retry delay a refusal for lack of a slot
// suggests: calls end at no predictable time.
const concurrencyRetry = time.Second

// ToolLimits returns middleware that applies the limits to tools/call
// (other requests pass through). It fails when two limits name the same
// tool, or more than one names none. Install it with sake.Use: it
// replaces the result of a call that timed out.
func ToolLimits(limits ...ToolLimit) (sake.Middleware, error) {
	tl := &toolLimiter{byTool: map[string]*toolLimit{}}
	for i := range limits {
		x := &toolLimit{ToolLimit: limits[i]}
		if x.QueueWait <= 0 {
			x.QueueWait = DefaultQueueWait
		}
		if x.Key == nil {
			x.Key = SubjectOf
		}
		x.clock.timeout, x.clock.epoch = x.Timeout, time.Now()
		x.tools.shared, x.subjects.shared = &x.mu, &x.mu
		if len(x.Tools) == 0 {
			if tl.rest != nil {
				return nil, errors.New("middleware: two ToolLimits name no tools; one default is allowed")
			}
			tl.rest = x
		}
		for _, name := range x.Tools {
			if tl.byTool[name] != nil {
				return nil, fmt.Errorf("middleware: tool %q is in two ToolLimits; name each tool once", name)
			}
			tl.byTool[name] = x
		}
	}
	return tl.middleware, nil
}

type toolLimiter struct {
	byTool map[string]*toolLimit
	rest   *toolLimit
}

type toolLimit struct {
	ToolLimit
	mu       sync.Mutex // the gates'
	tools    gate       // per tool
	subjects gate       // per tool and subject
	clock    clockTimeout
}

func (tl *toolLimiter) middleware(next sake.Handler) sake.Handler {
	return func(ctx context.Context, req *sake.Request) (any, error) {
		if req.Method != "tools/call" {
			return next(ctx, req)
		}
		x := tl.byTool[req.Params.Name]
		if x == nil {
			if x = tl.rest; x == nil {
				return next(ctx, req)
			}
		}
		return x.call(ctx, req, next)
	}
}

func (x *toolLimit) call(ctx context.Context, req *sake.Request, next sake.Handler) (any, error) {
	name := req.Params.Name
	// One lock, which the two gates share, takes both slots; one more
	// gives them back.
	var subject, tool *slot
	queue := false
	x.mu.Lock()
	if x.MaxPerSubject > 0 {
		s, ok := x.subjects.takeLocked(slotKey{tool: name, subject: x.Key(req)}, x.MaxPerSubject)
		if !ok {
			x.mu.Unlock()
			e := sake.RateLimited("", concurrencyRetry)
			e.Message = "Too many calls of tool " + name + " at once from this caller (at most " + strconv.Itoa(x.MaxPerSubject) + "); wait for one to finish, then retry"
			return nil, e
		}
		subject = s
	}
	if x.MaxConcurrent > 0 {
		// The caller's entry remembers its tool's, while the tool's gate
		// keeps it: one lookup less.
		var s *slot
		if subject != nil && subject.tool != nil && !subject.tool.dropped {
			s = subject.tool
		} else {
			s = x.tools.entryLocked(slotKey{tool: name})
			if subject != nil {
				subject.tool = s
			}
		}
		if s.running < x.MaxConcurrent {
			s.running++
			tool = s
		} else {
			queue = true
		}
	}
	x.mu.Unlock()
	defer x.leave(subject, &tool)
	if queue {
		s, err := x.tools.acquire(ctx, slotKey{tool: name}, x.MaxConcurrent, x.Queue, x.QueueWait)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &sake.Error{Code: sake.CodeServerBusy,
				Message: "Server busy: tool " + name + " is running as many calls as it may (" + strconv.Itoa(x.MaxConcurrent) + "); retry after the delay in data.retryAfterMs",
				Data:    &protocol.RetryData{RetryAfterMs: concurrencyRetry.Milliseconds()}}
		}
		tool = s
	}
	if x.Timeout <= 0 {
		return next(ctx, req)
	}
	tctx := x.clock.newCall(ctx)
	res, err := next(tctx, req)
	bad := failed(res, err)
	if tctx.finish(bad) && bad && ctx.Err() == nil {
		return sake.ErrorResult("Tool %s did not finish within %s and was stopped. Try again, perhaps with a smaller request.", name, x.Timeout), nil
	}
	return res, err
}

// leave gives back a call's slots, under one lock.
func (x *toolLimit) leave(subject *slot, tool **slot) {
	if subject == nil && *tool == nil {
		return
	}
	x.mu.Lock()
	if *tool != nil {
		x.tools.releaseLocked(*tool)
	}
	if subject != nil {
		x.subjects.releaseLocked(subject)
	}
	x.mu.Unlock()
}

// failed reports a call that ended in an error or an isError result.
func failed(res any, err error) bool {
	if err != nil {
		return true
	}
	r, ok := res.(*sake.ToolResult)
	return ok && r.IsError
}

// slotKey names the calls a gate counts together.
type slotKey struct {
	tool    string
	subject Subject
}

// gate counts running calls per key and queues those beyond the limit.
// A key's entry stays while calls run or wait, and idle afterwards until
// the gate holds gateIdle entries; then the idle ones are dropped. So a
// call usually costs one map lookup, and the gate holds no more than
// gateIdle entries beyond those of the calls in flight.
type gate struct {
	mu     sync.Mutex
	shared *sync.Mutex // the lock used instead of mu, when not nil
	slots  map[slotKey]*slot
	sweep  int // the number of entries at which idle ones are dropped
}

// lock is the gate's lock: shared, or else its own.
func (g *gate) lock() *sync.Mutex {
	if g.shared != nil {
		return g.shared
	}
	return &g.mu
}

// gateIdle is how many entries a gate keeps at least before it drops idle
// ones.
const gateIdle = 1024

type slot struct {
	running int
	waiters []chan struct{} // closed when a finishing call hands over its slot
	// tool is, in the gate per tool and subject, the entry of the same
	// tool in the gate per tool (which shares the lock), once looked up;
	// it is used only while that gate keeps it (not dropped).
	tool    *slot
	dropped bool // dropped from its gate's map: a new entry counts its key now
}

var errNoSlot = errors.New("middleware: no slot")

// acquire takes a slot for k, of which max run at once; up to queue calls
// wait for one, at most wait. The slot returned is the one to release.
func (g *gate) acquire(ctx context.Context, k slotKey, max, queue int, wait time.Duration) (*slot, error) {
	mu := g.lock()
	mu.Lock()
	s, ok := g.takeLocked(k, max)
	if ok {
		mu.Unlock()
		return s, nil
	}
	if len(s.waiters) >= queue {
		mu.Unlock()
		return nil, errNoSlot
	}
	ch := make(chan struct{})
	s.waiters = append(s.waiters, ch)
	mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ch:
		return s, nil
	case <-ctx.Done():
	case <-timer.C:
	}
	mu.Lock()
	defer mu.Unlock()
	for i, w := range s.waiters {
		if w == ch {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return nil, errNoSlot
		}
	}
	return s, nil // handed a slot as it gave up: take it
}

// takeLocked takes a slot for k, of which max run at once, if one is
// free; else it returns the entry of k, not taken. The gate's lock is
// held.
func (g *gate) takeLocked(k slotKey, max int) (*slot, bool) {
	s := g.entryLocked(k)
	if s.running < max {
		s.running++
		return s, true
	}
	return s, false
}

// entryLocked is the entry of k, made if there is none. The gate's lock
// is held.
func (g *gate) entryLocked(k slotKey) *slot {
	s := g.slots[k]
	if s == nil {
		if g.slots == nil {
			g.slots, g.sweep = map[slotKey]*slot{}, gateIdle
		}
		if len(g.slots) >= g.sweep {
			g.dropIdle()
		}
		s = new(slot)
		g.slots[k] = s
	}
	return s
}

// dropIdle drops the entries of keys without calls, and sets the size
// of the next sweep to twice what is left (at least gateIdle); g.mu is
// held.
func (g *gate) dropIdle() {
	for k, s := range g.slots {
		if s.running == 0 && len(s.waiters) == 0 {
			s.dropped = true
			delete(g.slots, k)
		}
	}
	g.sweep = max(gateIdle, 2*len(g.slots))
}

// release gives s to the first waiting call, or frees it.
func (g *gate) release(s *slot) {
	mu := g.lock()
	mu.Lock()
	g.releaseLocked(s)
	mu.Unlock()
}

// releaseLocked is release with the gate's lock held.
func (g *gate) releaseLocked(s *slot) {
	if len(s.waiters) > 0 {
		close(s.waiters[0])
		s.waiters = s.waiters[1:]
	} else {
		s.running--
	}
}
