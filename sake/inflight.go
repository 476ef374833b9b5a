package sake

import (
	"sync"
	"sync/atomic"
)

// inFlight tracks the requests running on one connection or session, by
// id (its JSON text), so that notifications/cancelled can stop them. A
// request is tracked from its decoding, before it runs.
type inFlight struct {
	mu     sync.Mutex
	m      map[string]*flight
	closed bool
	ended  atomic.Bool // the input ended: no answer to a question can come
}

// flight is one tracked request. Its identity lets a request untrack only
// itself when a client reuses an id.
type flight struct {
	owner     *inFlight
	longLived bool
	asking    atomic.Int32

	mu        sync.Mutex
	cancel    func()
	cancelled bool
}

// start gives the flight its cancel function, calling it at once when the
// request was cancelled before it ran.
func (f *flight) start(cancel func()) {
	f.mu.Lock()
	if f.cancelled {
		f.mu.Unlock()
		cancel()
		return
	}
	f.cancel = cancel
	f.mu.Unlock()
}

// stop cancels the request, now or when it starts.
func (f *flight) stop() {
	f.mu.Lock()
	f.cancelled = true
	c := f.cancel
	f.mu.Unlock()
	if c != nil {
		c()
	}
}

// ask marks the request as waiting for the client, and reports whether an
// answer can still come; done unmarks it.
func (f *flight) ask() bool {
	f.asking.Add(1)
	if f.owner.ended.Load() {
		f.asking.Add(-1)
		return false
	}
	return true
}

func (f *flight) doneAsking() { f.asking.Add(-1) }

// track starts tracking a request. ok is false when max (> 0) requests
// are tracked already. A tracker that is closed returns a flight already
// cancelled.
func (t *inFlight) track(id string, longLived bool, max int) (fl *flight, ok bool) {
	fl = &flight{owner: t, longLived: longLived}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		fl.cancelled = true
		return fl, true
	}
	if max > 0 && len(t.m) >= max {
		return nil, false
	}
	if t.m == nil {
		t.m = make(map[string]*flight)
	}
	t.m[id] = fl // a reused id replaces the older request
	return fl, true
}

func (t *inFlight) untrack(id string, fl *flight) {
	t.mu.Lock()
	if t.m[id] == fl {
		delete(t.m, id)
	}
	t.mu.Unlock()
}

// cancel cancels the request with that id and reports whether there was
// one.
func (t *inFlight) cancel(id string) bool {
	t.mu.Lock()
	fl := t.m[id]
	t.mu.Unlock()
	if fl != nil {
		fl.stop()
	}
	return fl != nil
}

// len returns how many requests are tracked.
func (t *inFlight) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// endInput cancels the requests that cannot finish without more input:
// long-lived ones and those waiting for an answer.
func (t *inFlight) endInput() {
	t.ended.Store(true)
	t.mu.Lock()
	var stop []*flight
	for _, fl := range t.m {
		if fl.longLived || fl.asking.Load() > 0 {
			stop = append(stop, fl)
		}
	}
	t.mu.Unlock()
	for _, fl := range stop {
		fl.stop()
	}
}

// cancelAll cancels every running request and refuses new ones.
func (t *inFlight) cancelAll() {
	t.mu.Lock()
	m := t.m
	t.m = nil
	t.closed = true
	t.mu.Unlock()
	for _, fl := range m {
		fl.stop()
	}
}
