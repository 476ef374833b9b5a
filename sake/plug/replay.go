package plug

import (
	"sync"
	"sync/atomic"
)

// Replay memory is bounded three ways: each stream keeps at most
// ReplayBuffer events, each session at most ReplayBytes' per-session bytes
// across its streams, and the handler at most its per-server bytes across
// all sessions. When a budget is exceeded the oldest events under it are
// dropped, so a client resuming from before them gets an honest 410
// instead of a stream with a gap.

// kept is one event held for replay. Whichever bound needs room first drops
// it, without taking the stream's lock: dropping swaps the frame out and
// gives its bytes back to the session's and the handler's budgets, once.
type kept struct {
	seq   uint64
	size  int64
	e     *entry
	frame atomic.Pointer[[]byte]
}

// drop releases the event's frame; later calls do nothing.
func (k *kept) drop() {
	if k.frame.Swap(nil) != nil {
		k.e.replayBytes.Add(-k.size)
		k.e.budget.bytes.Add(-k.size)
	}
}

func (k *kept) live() bool { return k.frame.Load() != nil }

// replayBudget is the handler-wide bound on replay bytes: every kept event
// of every session, oldest first.
type replayBudget struct {
	max   int64
	bytes atomic.Int64

	mu   sync.Mutex
	kept fifo
}

// fifo is a queue of kept events, oldest first. Events dropped elsewhere
// stay in it until they reach the front or a compaction removes them.
type fifo struct {
	q    []*kept
	head int
	mark int // live length after the last compaction
}

// push appends k, compacting away dropped events once the queue has grown
// to twice what was live at the last compaction: amortized constant time,
// and the queue stays within a constant factor of the live events.
func (f *fifo) push(k *kept) {
	f.q = append(f.q, k)
	if len(f.q)-f.head >= 2*f.mark+64 {
		live := 0
		for _, x := range f.q[f.head:] {
			if x.live() {
				f.q[live] = x
				live++
			}
		}
		clear(f.q[live:])
		f.q, f.head, f.mark = f.q[:live], 0, live
	}
}

// trim drops events from the front while over reports the budget
// exceeded, and pops the dropped ones it finds there.
func (f *fifo) trim(over func() bool) {
	for f.head < len(f.q) {
		k := f.q[f.head]
		if k.live() && !over() {
			break
		}
		k.drop()
		f.q[f.head] = nil
		f.head++
	}
	switch {
	case f.head == len(f.q):
		f.q, f.head = f.q[:0], 0
	case f.head > 64 && f.head > len(f.q)/2:
		n := copy(f.q, f.q[f.head:])
		clear(f.q[n:])
		f.q, f.head = f.q[:n], 0
	}
}

// dropAll drops every event in the queue and empties it.
func (f *fifo) dropAll() {
	for _, k := range f.q[f.head:] {
		k.drop()
	}
	clear(f.q)
	f.q, f.head, f.mark = f.q[:0], 0, 0
}

// account charges a newly kept event to the session's and the handler's
// budgets, dropping the oldest events of each that no longer fit (the new
// one too, when it alone is larger than a budget).
func (e *entry) account(k *kept) {
	e.replayBytes.Add(k.size)
	e.budget.bytes.Add(k.size)
	e.rmu.Lock()
	e.kept.push(k)
	e.kept.trim(func() bool { return e.replayBytes.Load() > e.maxReplayBytes })
	e.rmu.Unlock()
	b := e.budget
	b.mu.Lock()
	b.kept.push(k)
	b.kept.trim(func() bool { return b.bytes.Load() > b.max })
	b.mu.Unlock()
	select {
	case <-e.closed: // the session ended meanwhile: keep nothing for it
		e.dropReplay()
	default:
	}
}

// dropReplay drops every event the session keeps.
func (e *entry) dropReplay() {
	e.rmu.Lock()
	e.kept.dropAll()
	e.rmu.Unlock()
}

// dropReplay drops every event the stream keeps.
func (s *stream) dropReplay() {
	s.mu.Lock()
	for _, k := range s.ring {
		k.drop()
	}
	s.mu.Unlock()
}
