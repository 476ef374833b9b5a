package stdio

import (
	"bytes"
	"context"
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// call is a request handed to a worker.
type call struct {
	ctx    context.Context // a child of base
	base   context.Context
	cancel context.CancelFunc
	out    *output
	calls  *calls
	// stream marks subscriptions/listen, which runs until cancelled.
	stream bool
	// session is the legacy session the request was read in, if any.
	session *sake.Session
}

// cancelled reports whether the request was cancelled. Checking base too
// matters: when base ends, its children learn it one after the other, and
// Serve may meanwhile cancel the dispatcher's own context for the request
// (InFlight.CancelAll), so the tool can return before ctx is marked.
func (c *call) cancelled() bool { return c.ctx.Err() != nil || c.base.Err() != nil }

// notify writes a message of the request while it is live: nothing goes
// out for a request once it is cancelled. A request of the server to the
// client (legacy era) is recorded first, so that the request asking is
// cancelled if the input ends before the answer comes.
func (c *call) notify(msg []byte) {
	if c.cancelled() {
		return
	}
	if bytes.Contains(msg, []byte(`"id"`)) { // notifications have none
		if p := peek(msg); p.kind == kindRequest && !c.calls.asked(string(p.id), c) {
			c.cancel() // no answer can come
			return
		}
	}
	_ = c.out.write(msg) // a failure stops the connection; see output.fail
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
//
// It also follows the requests the server sends the client in the legacy
// era: the request that asked waits for the answer, which can never come
// once the input has ended, so that request is then cancelled.
type calls struct {
	mu    sync.Mutex
	m     map[string]*call
	asks  map[string]*call // by the id of the server's request, until answered
	ended bool             // the input ended: no more answers
}

func (cs *calls) add(id string, c *call) {
	cs.mu.Lock()
	if cs.m == nil {
		cs.m = make(map[string]*call)
	}
	cs.m[id] = c // a reused id replaces the older request, as in the dispatcher
	cs.mu.Unlock()
}

// remove forgets a finished request, unless its id now names a newer one,
// and the questions it asked.
func (cs *calls) remove(id string, c *call) {
	cs.mu.Lock()
	if cs.m[id] == c {
		delete(cs.m, id)
	}
	for k, a := range cs.asks {
		if a == c {
			delete(cs.asks, k)
		}
	}
	cs.mu.Unlock()
}

// asked records that c sent the client a request with that id, and
// reports whether an answer can still come.
func (cs *calls) asked(id string, c *call) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.ended {
		return false
	}
	if cs.asks == nil {
		cs.asks = make(map[string]*call)
	}
	cs.asks[id] = c
	return true
}

// answered forgets a request of the server once the client answered it.
func (cs *calls) answered(id []byte) {
	cs.mu.Lock()
	delete(cs.asks, string(id))
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

// endInput is called when the input ends. The requests that can no
// longer finish are cancelled: subscriptions/listen, which runs until
// cancelled, and those waiting for the answer to a request they sent the
// client. Requests asking the client later are cancelled as they ask.
func (cs *calls) endInput() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.ended = true
	for _, c := range cs.m {
		if c.stream {
			c.cancel()
		}
	}
	for _, c := range cs.asks {
		c.cancel()
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
