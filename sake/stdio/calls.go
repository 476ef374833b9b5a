package stdio

import (
	"context"
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// call is a request running on its own goroutine.
type call struct {
	ctx    context.Context
	cancel context.CancelFunc
	out    *output
	// stream marks subscriptions/listen, which runs until cancelled.
	stream bool
	// session is the legacy session the request was read in, if any.
	session *sake.Session
}

// notify writes a notification of the request while it is live: nothing
// goes out for a request once it is cancelled.
func (c *call) notify(msg []byte) {
	if c.ctx.Err() == nil {
		_ = c.out.write(msg) // a failure stops the connection; see output.fail
	}
}

// calls are the running requests by id (the id's JSON text, as sent), so
// that notifications/cancelled can stop them.
//
// The dispatcher tracks running requests too (sake.InFlight, and each
// legacy session), but only from the moment the request's goroutine
// reaches it: a cancellation read right after its request could miss it.
// The transport registers each request before starting it and cancels the
// context it gives the dispatcher, which covers both eras and that race,
// and lets the worker see that its request was cancelled.
type calls struct {
	mu sync.Mutex
	m  map[string]*call
}

func (cs *calls) add(id string, c *call) {
	cs.mu.Lock()
	if cs.m == nil {
		cs.m = make(map[string]*call)
	}
	cs.m[id] = c // a reused id replaces the older request, as in the dispatcher
	cs.mu.Unlock()
}

// remove forgets a finished request, unless its id now names a newer one.
func (cs *calls) remove(id string, c *call) {
	cs.mu.Lock()
	if cs.m[id] == c {
		delete(cs.m, id)
	}
	cs.mu.Unlock()
}

// cancel cancels the request with that id, if it is running.
func (cs *calls) cancel(id []byte) {
	cs.mu.Lock()
	c := cs.m[string(id)]
	cs.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// cancelStreams cancels the running subscriptions/listen requests.
func (cs *calls) cancelStreams() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.m {
		if c.stream {
			c.cancel()
		}
	}
}

// cancelSession cancels the running requests of a legacy session.
func (cs *calls) cancelSession(s *sake.Session) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.m {
		if c.session == s {
			c.cancel()
		}
	}
}
