package sake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// AfterClose runs once when the server ends a session, whoever ends it:
// here the server itself, evicting the owner's idle session to make room.
func TestAfterCloseFollowsEviction(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes(), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 1}))
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
	transport.AfterClose(first, func() { calls++ })
	open() // the same address: the first, idle, makes room
	if !first.Closed() || calls != 1 {
		t.Fatalf("after the eviction: closed %v, AfterClose ran %d times", first.Closed(), calls)
	}
	first.Close()
	if calls != 1 {
		t.Fatalf("AfterClose ran %d times", calls)
	}
	late := 0
	transport.AfterClose(first, func() { late++ })
	if late != 1 {
		t.Fatal("AfterClose on an ended session did not run at once")
	}
}

// openFrom opens a legacy session for an anonymous caller at remote, or
// returns the reply refusing it.
func openFrom(t *testing.T, s *sake.Server, remote string) (*sake.Session, sake.Reply) {
	t.Helper()
	r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`),
		&sake.Inbound{RemoteAddr: remote})
	if r.Session != nil {
		t.Cleanup(r.Session.Close)
	}
	return r.Session, r
}

// A full server makes room for a newcomer by evicting an idle session of
// the owner holding the most, so a few addresses cannot keep every other
// caller out; when every owner holds as few as the newcomer would, it is
// refused as too many sessions.
func TestFullServerEvictsTheHeaviestOwner(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes(), sake.WithLimits(sake.Limits{MaxSessions: 3}))
	var heavy []*sake.Session
	for range 3 {
		sess, r := openFrom(t, s, "192.0.2.1")
		if sess == nil {
			t.Fatalf("initialize: %s", r.Body)
		}
		heavy = append(heavy, sess)
	}
	for _, remote := range []string{"192.0.2.2", "192.0.2.3"} {
		if sess, r := openFrom(t, s, remote); sess == nil {
			t.Fatalf("a newcomer at %s on a full server: %s", remote, r.Body)
		}
	}
	if !heavy[0].Closed() || !heavy[1].Closed() || heavy[2].Closed() {
		t.Fatalf("the heaviest owner's sessions: closed %v %v %v, want its two oldest", heavy[0].Closed(), heavy[1].Closed(), heavy[2].Closed())
	}
	// Now every owner holds one: nobody is evicted for a fourth.
	sess, r := openFrom(t, s, "192.0.2.4")
	if sess != nil || !r.Busy || !errors.Is(r.Cause, sake.ErrTooManySessions) {
		t.Fatalf("a newcomer when all hold one: session %v, busy %v, cause %v", sess != nil, r.Busy, r.Cause)
	}
	if heavy[2].Closed() {
		t.Fatal("an owner with a single session was evicted")
	}
}

// Anonymous IPv6 callers count by their /64: one host cannot open more
// sessions by changing the low bits of its address.
func TestAnonymousIPv6CountsPerPrefix(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes(), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 1}))
	first, _ := openFrom(t, s, "2001:db8::1")
	openFrom(t, s, "2001:db8::ffff:2")
	if !first.Closed() {
		t.Fatal("a second address of the same /64 did not share its owner's limit")
	}
	other, _ := openFrom(t, s, "2001:db8:0:1::1")
	mapped, _ := openFrom(t, s, "::ffff:192.0.2.9")
	v4, _ := openFrom(t, s, "192.0.2.9")
	if other.Closed() || !mapped.Closed() || v4.Closed() {
		t.Fatalf("other /64 closed %v; IPv4-mapped closed %v (want it counted as 192.0.2.9); IPv4 closed %v", other.Closed(), mapped.Closed(), v4.Closed())
	}
}
