package plug_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/transport"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"plug-test","version":"1.0.0"}}}`

// initializeFrom sends an initialize as an anonymous caller at remote
// (host:port) straight to the handler, and returns the recorded answer.
func initializeFrom(h http.Handler, remote string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(initializeBody))
	for k, v := range legacyHeaders("") {
		req.Header[k] = v
	}
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// At the cap of legacy sessions (the server's and the handler's, equal
// as by default), initializes arriving together each make room by
// evicting an idle least recently used session, as they do one at a
// time: none is refused while an idle session is left. Sessions in use
// are never evicted; with none idle, initialize is refused 503 with the
// server's one message for no room.
func TestConcurrentInitializesAtTheSessionCapEvictIdleSessions(t *testing.T) {
	t.Parallel()
	const maxSessions, busy, newcomers = 50, 10, 32
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxSessions: maxSessions}))
	h := plug.New(srv, plug.Logger(quiet), plug.MaxSessions(maxSessions))
	t.Cleanup(h.Close)

	var held []*sake.Session
	for i := range maxSessions {
		rec := initializeFrom(h, "192.0.2.1:1000")
		sid := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || sid == "" {
			t.Fatalf("session %d: %d %s", i, rec.Code, rec.Body)
		}
		if i < busy {
			sess := transport.SessionFor(srv, sid, nil)
			t.Cleanup(transport.Hold(sess)) // a request running: not idle
			held = append(held, sess)
		}
	}

	var wg sync.WaitGroup
	codes := make([]int, newcomers)
	bodies, sids := make([]string, newcomers), make([]string, newcomers)
	start := make(chan struct{})
	for i := range newcomers {
		wg.Go(func() {
			<-start
			rec := initializeFrom(h, fmt.Sprintf("198.51.100.%d:2000", i+1))
			codes[i], bodies[i], sids[i] = rec.Code, rec.Body.String(), rec.Header().Get("Mcp-Session-Id")
		})
	}
	close(start)
	wg.Wait()
	for i := range newcomers {
		if codes[i] != http.StatusOK {
			t.Errorf("newcomer %d refused with %d %s although idle sessions could make room", i, codes[i], bodies[i])
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

	// Hold every session left: then nothing can be evicted and a
	// newcomer is refused, in the server's words.
	for _, sid := range sids {
		t.Cleanup(transport.Hold(transport.SessionFor(srv, sid, nil)))
	}
	for i := range maxSessions - busy - newcomers {
		rec := initializeFrom(h, fmt.Sprintf("203.0.113.%d:3000", i+1))
		if rec.Code != http.StatusOK {
			t.Fatalf("filling: %d %s", rec.Code, rec.Body)
		}
		t.Cleanup(transport.Hold(transport.SessionFor(srv, rec.Header().Get("Mcp-Session-Id"), nil)))
	}
	wantNoRoom(t, initializeFrom(h, "203.0.113.200:4000"))
}

// wantNoRoom checks the one refusal of an initialize with no room for a
// session: 503, Retry-After, CodeServerBusy and sake.TooManySessionsMessage.
func wantNoRoom(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	var refusal struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &refusal)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
		refusal.Error.Code != sake.CodeServerBusy || refusal.Error.Message != sake.TooManySessionsMessage {
		t.Fatalf("initialize with no room: %d %s, want 503 with Retry-After and %q", rec.Code, rec.Body, sake.TooManySessionsMessage)
	}
}

// The handler's own cap (plug.MaxSessions, here below the server's) keeps
// the same rule: an idle least recently used session of the handler makes
// room, and with none idle the refusal is the server's.
func TestHandlerSessionCapEvictsIdleSessions(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(echo{}, sake.Logger(quiet))
	h := plug.New(srv, plug.Logger(quiet), plug.MaxSessions(2))
	t.Cleanup(h.Close)
	open := func(remote string) *sake.Session {
		t.Helper()
		rec := initializeFrom(h, remote)
		if rec.Code != http.StatusOK {
			t.Fatalf("initialize from %s: %d %s", remote, rec.Code, rec.Body)
		}
		return transport.SessionFor(srv, rec.Header().Get("Mcp-Session-Id"), nil)
	}
	first, second := open("192.0.2.1:1"), open("192.0.2.2:1")
	t.Cleanup(transport.Hold(second))
	third := open("192.0.2.3:1") // the first, idle, makes room
	if !first.Closed() || second.Closed() || third.Closed() {
		t.Fatalf("closed: first %v, second %v, third %v; want the idle first only", first.Closed(), second.Closed(), third.Closed())
	}
	t.Cleanup(transport.Hold(third))
	wantNoRoom(t, initializeFrom(h, "192.0.2.4:1"))
}

// The moment the server has forgotten a session it evicted, before the
// handler hears of it, another initialize is admitted by the server: the
// handler must not count the evicted session against its own cap then.
func TestEvictedSessionDoesNotHoldTheHandlersCap(t *testing.T) {
	t.Parallel()
	forgotten, release := make(chan struct{}), make(chan struct{})
	var opened sync.Mutex
	n := 0
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxSessions: 2}),
		sake.Observe(sake.Hooks{Session: func(context.Context, *sake.Request, *sake.Session) func() {
			opened.Lock()
			n++
			first := n == 1
			opened.Unlock()
			if !first {
				return nil
			}
			// The first session's end: the server forgot it; the handler
			// has not heard yet.
			return func() { close(forgotten); <-release }
		}}))
	h := plug.New(srv, plug.Logger(quiet), plug.MaxSessions(2))
	t.Cleanup(h.Close)
	open := func(remote string) *httptest.ResponseRecorder { return initializeFrom(h, remote) }
	if rec := open("192.0.2.1:1"); rec.Code != http.StatusOK { // idle: it will be evicted
		t.Fatalf("first: %d %s", rec.Code, rec.Body)
	}
	rec := open("192.0.2.1:2")
	if rec.Code != http.StatusOK {
		t.Fatalf("second: %d %s", rec.Code, rec.Body)
	}
	t.Cleanup(transport.Hold(transport.SessionFor(srv, rec.Header().Get("Mcp-Session-Id"), nil)))

	evicting := make(chan *httptest.ResponseRecorder)
	go func() { evicting <- open("198.51.100.1:1") }() // evicts the first
	<-forgotten
	if rec := open("198.51.100.2:1"); rec.Code != http.StatusOK {
		t.Errorf("an initialize the server has room for, refused by the handler: %d %s", rec.Code, rec.Body)
	}
	close(release)
	<-evicting
}

// BenchmarkInitializeAtTheHandlerCap measures an initialize that finds
// the handler at its cap of idle sessions (the least recently used one
// makes room), beside one at the server's cap and one without a cap,
// holding as many.
func BenchmarkInitializeAtTheHandlerCap(b *testing.B) {
	const sessions = 2000
	for _, tc := range []struct {
		name           string
		cap, serverCap int
	}{{"at the handler cap", sessions, -1}, {"at the server cap", 0, sessions}, {"no cap", 0, -1}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxSessions: tc.serverCap, MaxSessionsPerOwner: -1}))
			h := plug.New(srv, plug.Logger(quiet), plug.MaxSessions(tc.cap))
			b.Cleanup(h.Close)
			for range sessions {
				if rec := initializeFrom(h, "192.0.2.1:1"); rec.Code != http.StatusOK {
					b.Fatalf("filling: %d %s", rec.Code, rec.Body)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if rec := initializeFrom(h, "192.0.2.1:1"); rec.Code != http.StatusOK {
					b.Fatalf("initialize: %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
