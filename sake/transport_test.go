package sake_test

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

type lineTools struct{ started chan struct{} }

func (l *lineTools) Echo(ctx *sake.Context, a struct {
	Text string `json:"text"`
}) (string, error) {
	return a.Text, nil
}

func (l *lineTools) Block(ctx *sake.Context) (string, error) {
	close(l.started)
	<-ctx.Done()
	return "", ctx.Err()
}

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestSessionQuotaPerOwner(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newNotes(), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 2}))
	alice := &sake.Identity{Subject: "alice"}
	bob := &sake.Identity{Subject: "bob"}
	open := func(who *sake.Identity, addr string) sake.Reply {
		return srv.Handle(context.Background(), []byte(initMsg), &sake.Inbound{Identity: who, RemoteAddr: addr})
	}
	b1 := open(bob, "")
	a1, a2 := open(alice, ""), open(alice, "")
	if a1.Session == nil || a2.Session == nil || b1.Session == nil {
		t.Fatal("sessions under the quota were refused")
	}
	// A third for alice closes her least recently used idle session, not bob's.
	transport.Hold(a2.Session) // in use: not idle (never released in this test)
	a3 := open(alice, "")
	if a3.Session == nil {
		t.Fatalf("the third session was refused: %s", a3.Body)
	}
	if !a1.Session.Closed() || a2.Session.Closed() || b1.Session.Closed() {
		t.Errorf("closed: a1 %v a2 %v b1 %v; want only a1", a1.Session.Closed(), a2.Session.Closed(), b1.Session.Closed())
	}
	if transport.SessionFor(srv, a1.Session.ID(), alice) != nil {
		t.Error("the evicted session is still found")
	}
	if transport.SessionFor(srv, b1.Session.ID(), alice) != nil {
		t.Error("alice found bob's session")
	}
	// With none idle, the next is refused and nothing changes.
	transport.Hold(a3.Session)
	r := open(alice, "")
	if r.Session != nil || r.ErrorCode != sake.CodeServerBusy || !r.Busy {
		t.Fatalf("want a busy refusal, got %s", r.Body)
	}
	if a2.Session.Closed() || a3.Session.Closed() {
		t.Error("a refusal closed a session")
	}
	// Anonymous callers count per remote address.
	for i := 0; i < 2; i++ {
		if r := open(nil, "192.0.2.1"); r.Session == nil || r.Session.Closed() {
			t.Fatal("anonymous session refused")
		}
	}
	other := open(nil, "192.0.2.2")
	if other.Session == nil {
		t.Fatal("another address was refused")
	}
}

func TestInFlightCapPerSession(t *testing.T) {
	t.Parallel()
	tl := &lineTools{started: make(chan struct{})}
	srv := sake.MustNew(tl, sake.WithLimits(sake.Limits{MaxInFlight: 1}))
	conn := transport.Connect(srv, "test", nil, transport.StreamFunc(func([]byte) {}))
	defer conn.Close()
	if r := conn.Decode([]byte(initMsg)).Handle(context.Background()); r.Session == nil {
		t.Fatalf("initialize: %s", r.Body)
	}
	block := conn.Decode([]byte(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}`))
	done := make(chan sake.Reply, 1)
	go func() { done <- block.Handle(context.Background()) }()
	<-tl.started
	r := conn.Decode([]byte(`{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)).Handle(context.Background())
	if r.ErrorCode != sake.CodeServerBusy || !r.Busy {
		t.Fatalf("want -32000, got %s", r.Body)
	}
	conn.Decode([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}`)).Handle(context.Background())
	if r := <-done; !r.Cancelled {
		t.Errorf("the blocked call was not cancelled: %s", r.Body)
	}
	// Room again.
	r = conn.Decode([]byte(`{"jsonrpc":"2.0","id":"e2","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)).Handle(context.Background())
	if r.ErrorCode != 0 {
		t.Errorf("after the cancellation: %s", r.Body)
	}
}

type stubborn struct {
	started chan struct{}
	release chan struct{}
}

// Hold ignores its context until released.
func (s *stubborn) Hold(ctx *sake.Context) (string, error) {
	close(s.started)
	<-s.release
	return "released", nil
}

func TestShutdownWaitsForRequests(t *testing.T) {
	t.Parallel()
	tl := &lineTools{started: make(chan struct{})}
	srv := sake.MustNew(tl)
	conn := transport.Connect(srv, "test", nil, transport.StreamFunc(func([]byte) {}))
	defer conn.Close()
	conn.Decode([]byte(initMsg)).Handle(context.Background())
	done := make(chan sake.Reply, 1)
	m := conn.Decode([]byte(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}`))
	go func() { done <- m.Handle(context.Background()) }()
	<-tl.started
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	// The session's request was cancelled.
	if r := <-done; !r.Cancelled {
		t.Errorf("the request was not cancelled: %s", r.Body)
	}
	if r := srv.Handle(context.Background(), []byte(initMsg), nil); r.Session != nil || r.ErrorCode != sake.CodeServerBusy {
		t.Errorf("initialize after Shutdown: %s", r.Body)
	}
}

func TestShutdownGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	st := &stubborn{started: make(chan struct{}), release: make(chan struct{})}
	srv := sake.MustNew(st)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",`+modernMeta+`}}`), nil)
	}()
	<-st.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.Shutdown(ctx); err != context.Canceled {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	close(st.release)
	<-done
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown once the request returned = %v", err)
	}
}
