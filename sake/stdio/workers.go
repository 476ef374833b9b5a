package stdio

import (
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// pool runs requests on up to cfg.maxConcurrent workers, started as needed
// and kept until Serve returns: a goroutine per request would grow a fresh
// stack for every one. Requests beyond the workers wait in a queue; the
// server bounds how many are in flight (sake.MaxInFlight).
type pool struct {
	cn *conn
	wg sync.WaitGroup

	mu      sync.Mutex
	cond    sync.Cond
	queue   []*sake.Message
	head    int
	workers int
	idle    int
	closed  bool
}

func (p *pool) init(cn *conn) {
	p.cn = cn
	p.cond.L = &p.mu
}

// submit queues a request and wakes or starts a worker for it. Once the
// pool is closed the request is dropped: the connection's close cancels
// and forgets it.
func (p *pool) submit(m *sake.Message) {
	p.mu.Lock()
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

// close lets the workers return once the queue is empty.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// next waits for a queued request; nil means the pool is closed and empty.
func (p *pool) next() *sake.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.head == len(p.queue) {
		if p.closed {
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
	return m
}

// worker runs requests until the pool closes. Once the connection is
// stopped, queued requests are dropped without running: the connection's
// close cancels and forgets them.
func (p *pool) worker() {
	defer p.wg.Done()
	for m := p.next(); m != nil; m = p.next() {
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
