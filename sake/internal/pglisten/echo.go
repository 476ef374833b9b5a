package pglisten

import (
	"context"
	"sync"
	"time"
)

// MaxEchoWait bounds how long a write waits for its own notice to come
// back through the LISTEN connection.
const MaxEchoWait = time.Second

// Echoes lets a write wait until its own notice has come back through the
// LISTEN connection: PostgreSQL tells every listener of a notice as it
// commits, so once the writer's own has arrived, the other replicas' have
// been sent too, and the client that made the change will, in practice,
// find it wherever its next request goes. Nothing here is needed for
// correctness: a write that times out or loses its connection goes on.
type Echoes struct {
	mu      sync.Mutex
	on      bool // the LISTEN is in place
	next    uint64
	waiting map[uint64]chan struct{}
}

// noWait is the wait of a write whose notice will not come back.
func noWait(context.Context) {}

// Expect returns the number to put in a notice, and wait, which blocks
// until Heard(n), Off, MaxEchoWait or ctx's end; wait must be called once
// (it forgets n), or Forget. While the LISTEN is not in place (Off), n is
// 0 and wait returns at once.
func (e *Echoes) Expect() (n uint64, wait func(ctx context.Context)) {
	e.mu.Lock()
	if !e.on {
		e.mu.Unlock()
		return 0, noWait
	}
	e.next++
	n = e.next
	ch := make(chan struct{})
	if e.waiting == nil {
		e.waiting = make(map[uint64]chan struct{})
	}
	e.waiting[n] = ch
	e.mu.Unlock()
	return n, func(ctx context.Context) {
		t := time.NewTimer(MaxEchoWait)
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
		}
		e.forget(n)
	}
}

// forget drops n.
func (e *Echoes) forget(n uint64) {
	e.mu.Lock()
	delete(e.waiting, n)
	e.mu.Unlock()
}

// Forget drops n without waiting: the write failed or sent no notice.
func (e *Echoes) Forget(n uint64) { e.forget(n) }

// On says the LISTEN is in place: notices come back from now on.
func (e *Echoes) On() {
	e.mu.Lock()
	e.on = true
	e.mu.Unlock()
}

// Heard wakes the write waiting for notice n, if any.
func (e *Echoes) Heard(n uint64) {
	if n == 0 {
		return
	}
	e.mu.Lock()
	ch := e.waiting[n]
	delete(e.waiting, n)
	e.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// Off wakes every write waiting and makes later ones wait for nothing:
// the connection that would bring their notices back is lost or closed.
func (e *Echoes) Off() {
	e.mu.Lock()
	e.on = false
	chs := e.waiting
	e.waiting = nil
	e.mu.Unlock()
	for _, ch := range chs {
		close(ch)
	}
}
