package sake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// At Limits.MaxSessions, initializes arriving together each make room by
// evicting an idle least recently used session, as they do one at a
// time: none is refused while an idle session is left, and a session in
// use is never evicted. With none idle, the refusal is CodeServerBusy
// with TooManySessionsMessage.
func TestConcurrentInitializesAtTheCapEvictIdleSessions(t *testing.T) {
	t.Parallel()
	const maxSessions, busy, newcomers = 50, 10, 32
	s := sake.MustNew(newNotes(), sake.WithLimits(sake.Limits{MaxSessions: maxSessions}))
	var held []*sake.Session
	for i := range maxSessions {
		sess, r := openFrom(t, s, "192.0.2.1")
		if sess == nil {
			t.Fatalf("session %d: %s", i, r.Body)
		}
		if i < busy {
			t.Cleanup(transport.Hold(sess))
			held = append(held, sess)
		}
	}
	got := make([]*sake.Session, newcomers)
	replies := make([]sake.Reply, newcomers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range newcomers {
		wg.Go(func() {
			<-start
			got[i], replies[i] = openFrom(t, s, fmt.Sprintf("198.51.100.%d", i+1))
		})
	}
	close(start)
	wg.Wait()
	for i := range newcomers {
		if got[i] == nil {
			t.Errorf("newcomer %d refused although idle sessions could make room: %s", i, replies[i].Body)
		}
	}
	for i, sess := range held {
		if sess.Closed() {
			t.Errorf("session %d, in use, was evicted", i)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, sess := range got {
		t.Cleanup(transport.Hold(sess))
	}
	for i := range maxSessions - busy - newcomers {
		sess, r := openFrom(t, s, fmt.Sprintf("203.0.113.%d", i+1))
		if sess == nil {
			t.Fatalf("filling: %s", r.Body)
		}
		t.Cleanup(transport.Hold(sess))
	}
	sess, r := openFrom(t, s, "203.0.113.200")
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	if sess != nil || !r.Busy || !errors.Is(r.Cause, sake.ErrTooManySessions) ||
		body.Error.Code != sake.CodeServerBusy || body.Error.Message != sake.TooManySessionsMessage {
		t.Fatalf("initialize with nothing idle: session %v, busy %v, cause %v, body %s", sess != nil, r.Busy, r.Cause, r.Body)
	}
}
