package sake_test

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// AfterClose runs once when the server ends a session, whoever ends it:
// here the server itself, evicting the owner's idle session to make room.
func TestAfterCloseFollowsEviction(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes(), sake.MaxSessionsPerOwner(1))
	open := func() *sake.Session {
		r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`),
			&sake.Inbound{RemoteAddr: "192.0.2.1"})
		if r.Session == nil {
			t.Fatalf("initialize: %s", r.Body)
		}
		t.Cleanup(r.Session.Close)
		return r.Session
	}
	first := open()
	calls := 0
	first.AfterClose(func() { calls++ })
	open() // the same address: the first, idle, makes room
	if !first.Closed() || calls != 1 {
		t.Fatalf("after the eviction: closed %v, AfterClose ran %d times", first.Closed(), calls)
	}
	first.Close()
	if calls != 1 {
		t.Fatalf("AfterClose ran %d times", calls)
	}
	late := 0
	first.AfterClose(func() { late++ })
	if late != 1 {
		t.Fatal("AfterClose on an ended session did not run at once")
	}
}
