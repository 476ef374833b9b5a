package stdio

import (
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/transport"
)

// pool runs the requests that may run beside others, at most
// cfg.maxConcurrent at once. The reading goroutine runs a request itself
// (inline) when nothing waits and a slot is free, which costs no hand-off
// between goroutines; should it still run after handoffAfter, a watchdog
// passes the reading on to a new goroutine, so cancellations and the
// client's answers are read while the request goes on (see inline.go).
// Otherwise a request goes to the workers, started as needed and kept
// until Serve returns: a goroutine per request would grow a fresh stack
// for every one. Requests beyond the slots wait in a queue; the server
// bounds how many are in flight (sake.Limits.MaxInFlight).
type pool struct {
	cn *conn
	// wg counts the workers and the inline runs, so that drain waits for
	// every request. Add happens under mu before closed is set, hence
	// before drain's Wait.
	wg sync.WaitGroup

	mu      sync.Mutex
	cond    sync.Cond
	queue   []transport.Message
	head    int
	workers int // worker goroutines alive
	idle    int // workers waiting in next
	running int // requests running, on workers or inline
	closed  bool

	// The inline run in progress on the reading goroutine, and the
	// watchdog that hands the reading on when it lasts.
	inlineID uint64 // increases with every inline run
	inlineOn bool   // an inline run holds the reading
	seenID   uint64 // the inline run the watchdog saw at its last tick
	reader   uint64 // the generation of the goroutine that reads; each hand-off adds one
	armed    bool   // the watchdog's timer is pending
	timer    *time.Timer
	pooled   int // requests to send to the workers before running inline again
}

// handoffAfter is how long an inline request may hold the reading before
// a new goroutine takes it over: between one and two ticks of the
// watchdog. The watchdog ticks while requests stream in, and each tick
// wakes a thread: at 1 ms that cost about a tenth of a stream's CPU, at
// 10 ms it is lost in the noise of a run. A request waiting for the
// client's answer does not wait for the tick (stream.AwaitingAnswer).
var handoffAfter = 10 * time.Millisecond

// pooledAfterHandoff is how many requests go to the workers after a
// hand-off before the reading goroutine runs one inline again: a
// connection whose tools take long pays for a hand-off once in that many.
const pooledAfterHandoff = 256

func (p *pool) init(cn *conn) {
	p.cn = cn
	p.cond.L = &p.mu
}

// submit queues a request and wakes or starts a worker for it. Once the
// pool is closed the request is dropped: the connection's close cancels
// and forgets it.
func (p *pool) submit(m transport.Message) {
	p.mu.Lock()
	p.submitLocked(m)
}

// submitLocked is submit with p.mu held; it unlocks it.
func (p *pool) submitLocked(m transport.Message) {
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.queue = append(p.queue, m)
	waiting := len(p.queue) - p.head
	if p.idle >= waiting || p.workers >= p.cn.cfg.maxConcurrent {
		p.cond.Signal()
		p.mu.Unlock()
		return
	}
	p.workers++
	p.wg.Add(1)
	p.mu.Unlock()
	go p.worker()
}

// close lets the workers return once the queue is empty, and stops the
// watchdog.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
		p.armed = false
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// next ends the worker's previous request, if any, and waits for a
// queued one with a free slot; nil means the pool is closed and empty.
func (p *pool) next(ran bool) transport.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ran {
		p.running--
	}
	for p.head == len(p.queue) || p.running >= p.cn.cfg.maxConcurrent {
		if p.closed && p.head == len(p.queue) {
			return nil
		}
		p.idle++
		p.cond.Wait()
		p.idle--
	}
	m := p.queue[p.head]
	p.queue[p.head] = nil
	p.head++
	if p.head == len(p.queue) {
		p.queue, p.head = p.queue[:0], 0
	}
	p.running++
	return m
}

// worker runs requests until the pool closes. Once the connection is
// stopped, queued requests are dropped without running: the connection's
// close cancels and forgets them.
func (p *pool) worker() {
	defer p.wg.Done()
	for m := p.next(false); m != nil; m = p.next(true) {
		if p.cn.base.Err() != nil {
			continue
		}
		p.cn.run(m)
	}
}

// drain waits for the running requests. If the connection is stopped
// meanwhile by ctx, their contexts end with it and a write blocked in the
// output is interrupted.
func (cn *conn) drain() {
	done := make(chan struct{})
	go func() {
		cn.pool.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-cn.base.Done():
	}
	if cn.ctx.Err() != nil {
		cn.interruptWrite()
	}
	<-done
}
