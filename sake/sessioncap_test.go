package sake_test

import (
	"context"
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

// A shared session whose record another replica deleted (its notice
// raced a request that adopted a copy here) is not kept here: the first
// message that finds no record is answered as an unknown session, and the
// copy is closed, so it holds no room under Limits.MaxSessions.
func TestSharedSessionCopyWithoutRecordIsDropped(t *testing.T) {
	t.Parallel()
	store := &memStore{}
	s := sake.MustNew(newNotes(), sake.SessionStore(store), sake.WithLimits(sake.Limits{MaxSessions: 1}))
	sess, r := openFrom(t, s, "192.0.2.1")
	if sess == nil {
		t.Fatalf("initialize: %s", r.Body)
	}
	if err := store.DeleteSession(context.Background(), sess.ID()); err != nil { // another replica's DELETE
		t.Fatal(err)
	}
	ping := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		&sake.Inbound{SessionID: sess.ID(), RemoteAddr: "192.0.2.1"})
	if !ping.SessionNotFound {
		t.Fatalf("a message of a session without a record: %s, want an unknown session", ping.Body)
	}
	if !sess.Closed() {
		t.Fatal("the copy of a session without a record is still open here")
	}
	if other, r := openFrom(t, s, "192.0.2.2"); other == nil {
		t.Fatalf("the copy still holds the only room: %s", r.Body)
	}
}
