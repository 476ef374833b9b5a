package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// serveLines is a whole transport: newline-delimited JSON-RPC over a
// net.Conn, one goroutine per concurrent request. It is what the
// transport surface asks of a new transport, and nothing more.
func serveLines(ctx context.Context, srv *sake.Server, c net.Conn) {
	var wmu sync.Mutex
	write := func(msg []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = c.Write(append(msg, '\n'))
	}
	conn := transport.Connect(srv, "lines", nil, transport.StreamFunc(write))
	defer conn.Close()
	var wg sync.WaitGroup
	answer := func(m transport.Message) {
		if r := m.Handle(ctx); r.Body != nil && !r.Cancelled {
			write(r.Body)
		}
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		m := conn.Decode(append([]byte(nil), sc.Bytes()...))
		if m.Concurrent() {
			wg.Add(1)
			go func() { defer wg.Done(); answer(m) }()
		} else {
			answer(m)
		}
	}
	conn.EndInput()
	wg.Wait()
}

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

func TestLineTransport(t *testing.T) {
	t.Parallel()
	tl := &lineTools{started: make(chan struct{})}
	srv := sake.MustNew(tl)
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() { defer close(done); serveLines(context.Background(), srv, server); server.Close() }()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(client)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				t.Errorf("not JSON: %s", sc.Bytes())
			}
			lines <- m
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := client.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		select {
		case m := <-lines:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("nothing received for 10s")
		}
		return nil
	}
	// The legacy era: a session, a call, a cancellation of a blocked call.
	send(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := recv(); m["id"] != "i" || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	<-tl.started
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	// The modern era, on the same connection.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + modernMeta + `}}`)
	m := recv()
	if m["id"] != float64(2) || !strings.Contains(mustJSON(t, m["result"]), `"hi"`) {
		t.Fatalf("echo: %v", m)
	}
	client.Close()
	<-done
	for m := range lines {
		t.Errorf("written after the cancellation: %v", m)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// open starts a legacy session for who on srv.
func open(t *testing.T, srv *sake.Server, who *sake.Identity) *sake.Session {
	t.Helper()
	r := srv.Handle(context.Background(), []byte(initMsg), &sake.Inbound{Identity: who})
	if r.Session == nil {
		t.Fatalf("initialize: %s", r.Body)
	}
	return r.Session
}

func TestDecodeTellsTheTransportWhatAMessageIs(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})})
	for _, tc := range []struct {
		name, msg        string
		kind             protocol.Kind
		method           string
		concurrent, long bool
		cancels, id      string
		era              sake.Era
	}{
		{"call", `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo",` + modernMeta + `}}`, protocol.KindRequest, "tools/call", true, false, "", `"c"`, sake.EraModern},
		{"listen", `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{` + modernMeta + `}}`, protocol.KindRequest, "subscriptions/listen", true, true, "", "3", sake.EraModern},
		{"initialize", initMsg, protocol.KindRequest, "initialize", false, false, "", "1", sake.EraLegacy},
		{"cancel", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, protocol.KindNotification, "notifications/cancelled", false, false, "9", "", sake.EraLegacy},
	} {
		m := transport.Decode(srv, []byte(tc.msg), nil)
		if m.Kind() != tc.kind || m.Method() != tc.method || m.Concurrent() != tc.concurrent ||
			m.LongLived() != tc.long || string(m.Cancels()) != tc.cancels || string(m.ID()) != tc.id || m.Era() != tc.era {
			t.Errorf("%s: kind %v method %q concurrent %v long %v cancels %s id %s era %v", tc.name,
				m.Kind(), m.Method(), m.Concurrent(), m.LongLived(), m.Cancels(), m.ID(), m.Era())
		}
		if m.Session() != nil {
			t.Errorf("%s: a session for a message that names none", tc.name)
		}
		if tc.method != "subscriptions/listen" {
			m.Handle(context.Background())
		}
	}
}

func TestDecodeRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})})
	for _, tc := range []struct {
		msg  string
		code int
	}{
		{`{not json`, sake.CodeParseError},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, sake.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1}`, sake.CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, sake.CodeInvalidRequest},
	} {
		m := transport.Decode(srv, []byte(tc.msg), nil)
		if m.Concurrent() || m.LongLived() {
			t.Errorf("%s: a refused message may run beside others", tc.msg)
		}
		var buf []byte
		r := m.HandleInto(context.Background(), &buf)
		if r.ErrorCode != tc.code || r.Session != nil {
			t.Errorf("%s: code %d session %v, want %d and none: %s", tc.msg, r.ErrorCode, r.Session, tc.code, r.Body)
		}
	}
	// A session that does not exist is not found, and none is made.
	in := &sake.Inbound{SessionID: "nope"}
	m := transport.Decode(srv, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), in)
	if !in.SessionNotFound || in.Session != nil || m.Session() != nil {
		t.Errorf("an unknown session id: not found %v, session %v", in.SessionNotFound, in.Session)
	}
	if r := m.Handle(context.Background()); !r.SessionNotFound {
		t.Errorf("an unknown session id answered %s", r.Body)
	}
}

func TestFindSessionOnlyForItsOwner(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})})
	alice, bob := &sake.Identity{Subject: "alice"}, &sake.Identity{Subject: "bob"}
	sess := open(t, srv, alice)
	if got, err := transport.FindSession(srv, sess.ID(), alice); got != sess || err != nil {
		t.Fatalf("FindSession by its owner = %v, %v", got, err)
	}
	for _, tc := range []struct {
		name string
		id   string
		who  *sake.Identity
	}{
		{"another owner", sess.ID(), bob},
		{"anonymous", sess.ID(), nil},
		{"unknown id", "no-such-session", alice},
		{"empty id", "", alice},
	} {
		if got, err := transport.FindSession(srv, tc.id, tc.who); got != nil || err != nil {
			t.Errorf("%s: FindSession = %v, %v; want nil, nil", tc.name, got, err)
		}
		if got := transport.SessionFor(srv, tc.id, tc.who); got != nil {
			t.Errorf("%s: SessionFor = %v; want nil", tc.name, got)
		}
	}
	if sess.Closed() {
		t.Error("a refused look-up closed the session")
	}
	sess.Close()
	if got := transport.SessionFor(srv, sess.ID(), alice); got != nil {
		t.Error("a closed session is still found")
	}
}

func TestSetSenderCarriesTheSessionsMessages(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})})
	sess := open(t, srv, nil)
	if err := transport.Send(sess, []byte(`{}`)); !errors.Is(err, transport.ErrNoStream) {
		t.Fatalf("Send without a sender = %v, want ErrNoStream", err)
	}
	var got []string
	transport.SetSender(sess, func(msg []byte) error { got = append(got, string(msg)); return nil })
	if err := transport.Send(sess, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	transport.SetSender(sess, nil)
	if err := transport.Send(sess, []byte(`{"n":2}`)); !errors.Is(err, transport.ErrNoStream) {
		t.Errorf("Send after the sender was removed = %v, want ErrNoStream", err)
	}
	if len(got) != 1 || got[0] != `{"n":1}` {
		t.Errorf("sent %q", got)
	}
}

func TestHoldKeepsASessionFromEviction(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})}, sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 1}))
	alice := &sake.Identity{Subject: "alice"}
	first := open(t, srv, alice)
	release := transport.Hold(first)
	second := transport.Hold(first)
	release()
	release() // a second call does nothing: the other hold still counts
	r := srv.Handle(context.Background(), []byte(initMsg), &sake.Inbound{Identity: alice})
	if r.Session != nil || !r.Busy || first.Closed() {
		t.Fatalf("a held session was evicted: %s", r.Body)
	}
	second()
	if r := srv.Handle(context.Background(), []byte(initMsg), &sake.Inbound{Identity: alice}); r.Session == nil || !first.Closed() {
		t.Fatalf("a released session was kept: %s", r.Body)
	}
}

func TestCloseIdleAndAfterClose(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})})
	sess := open(t, srv, nil)
	if transport.Shared(sess) {
		t.Error("a session of a server without a SessionStore is shared")
	}
	if transport.LastUsed(sess).IsZero() {
		t.Error("LastUsed of a session that answered initialize is zero")
	}
	closed := 0
	transport.AfterClose(sess, func() { closed++ })
	transport.CloseIdle(sess, time.Minute)
	if !sess.Closed() || closed != 1 {
		t.Fatalf("CloseIdle: closed %v, AfterClose ran %d times", sess.Closed(), closed)
	}
	sess.Close()
	late := 0
	transport.AfterClose(sess, func() { late++ })
	if closed != 1 || late != 1 {
		t.Errorf("AfterClose ran %d and %d times, want 1 and 1 (at once on an ended session)", closed, late)
	}
}

type panicky struct{}

func (panicky) Boom(ctx *sake.Context) (string, error) { panic("boom") }

func TestWithPanicHandlerGetsTheToolsPanic(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(panicky{}, sake.Logger(slog.New(slog.DiscardHandler)))
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom",` + modernMeta + `}}`)
	var got any
	ctx := transport.WithPanicHandler(context.Background(), func(recovered any, stack []byte) {
		if len(stack) == 0 {
			t.Error("no stack")
		}
		got = recovered
	})
	r := srv.Handle(ctx, call, nil)
	if got != "boom" {
		t.Errorf("the handler got %v, want the panic's value", got)
	}
	if r.Body == nil || !strings.Contains(string(r.Body), `"isError":true`) {
		t.Errorf("a panic answered %s", r.Body)
	}
	// Without the handler, the panic is still an error result.
	got = nil
	if r := srv.Handle(context.Background(), call, nil); got != nil || !strings.Contains(string(r.Body), `"isError":true`) {
		t.Errorf("without a handler: got %v, answered %s", got, r.Body)
	}
}

func TestConnectWithoutAStreamDropsWhatItWouldSend(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(&lineTools{started: make(chan struct{})})
	conn := transport.Connect(srv, "quiet", nil, nil)
	defer conn.Close()
	if r := conn.Decode([]byte(initMsg)).Handle(context.Background()); r.Session == nil {
		t.Fatalf("initialize: %s", r.Body)
	}
	sess := conn.Session()
	if sess == nil {
		t.Fatal("the connection kept no session")
	}
	if err := transport.Send(sess, []byte(`{}`)); !errors.Is(err, transport.ErrNoStream) {
		t.Errorf("Send on a connection without a stream = %v, want ErrNoStream", err)
	}
	r := conn.Decode([]byte(`{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{` + modernMeta + `}}`)).Handle(context.Background())
	if r.ErrorCode != sake.CodeMethodNotFound {
		t.Errorf("listen without a stream answered %s", r.Body)
	}
	conn.EndInput()
	conn.Close()
	if !sess.Closed() {
		t.Error("Close left the session open")
	}
}
