package pgreplica_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
)

// startApart is start with each replica on a LISTEN connection of its
// own, as replicas in separate processes are (replicas of one process on
// one database share one): replica i reaches the cluster through hosts[i]
// (names of one address).
func startApart(t *testing.T, hosts []string, opts ...pgreplica.Option) []replica {
	return startApartHooked(t, hosts, nil, opts...)
}

// startApartHooked is startApart calling hook(i, r) on replica i before
// its server is built.
func startApartHooked(t *testing.T, hosts []string, hook func(int, *pgreplica.Replica), opts ...pgreplica.Option) []replica {
	t.Helper()
	base, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	var out []replica
	for i, host := range hosts {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = host + ":" + u.Port()
		r, err := pgreplica.Open(ctx, pgtest.Pool(t, u.String(), schema), opts...)
		if err != nil {
			t.Fatal(err)
		}
		if hook != nil {
			hook(i, r)
		}
		srv := sake.MustNew(app{}, r.Options()...)
		h := plug.New(srv, plug.Identify(func(req *http.Request) (*sake.Identity, error) {
			return &sake.Identity{Subject: req.Header.Get("X-User")}, nil
		}))
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			h.Close()
			_ = srv.Shutdown(ctx)
			_ = r.Close(ctx)
		})
		out = append(out, replica{srv: srv, url: ts.URL, r: r})
	}
	return out
}

// send sends one legacy message (a DELETE when body is empty) and
// returns the status and the session id the response names.
func send(url, sid, body string) (int, string, error) {
	method := http.MethodPost
	if body == "" {
		method = http.MethodDelete
	}
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("X-User", "alice")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), nil
}

// endThenUse opens a session on a, uses it on b (which then knows it),
// deletes it on a, and reports what b answers next: 404 once the DELETE
// is answered, every time.
func endThenUse(a, b string) error {
	code, sid, err := send(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if err != nil || code != http.StatusOK || sid == "" {
		return fmt.Errorf("initialize: %d, %v", code, err)
	}
	if code, _, err := send(b, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); err != nil || code != http.StatusOK {
		return fmt.Errorf("ping on the other replica before the DELETE: %d, %v", code, err)
	}
	if code, _, err := send(a, sid, ""); err != nil || code != http.StatusNoContent {
		return fmt.Errorf("DELETE: %d, %v", code, err)
	}
	if code, _, err := send(b, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); err != nil || code != http.StatusNotFound {
		return fmt.Errorf("ping on the other replica right after the DELETE was answered: %d, %v; want 404", code, err)
	}
	return nil
}

// Once a DELETE on one replica is answered, no other replica serves the
// session: each confirmed it dropped its copy before the answer. Many
// sessions, several at once, each used on the other replica just before
// its DELETE.
func TestDeletedSessionIsGoneEverywhereOnceAnswered(t *testing.T) {
	t.Parallel()
	rs := startApart(t, []string{"127.0.0.1", "localhost"})
	const workers, each = 8, 25
	errs := make(chan error, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a, b := rs[w%2].url, rs[(w+1)%2].url
			for range each {
				if err := endThenUse(a, b); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 5 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d sessions were served after their DELETE", n, workers*each)
	}
}

// The DELETE waits for the other replica, however late that replica
// hears of the end: here B's listener is held on the notice of the
// session's start until A's DELETE has begun waiting for B, so a DELETE
// answered on its own echo alone is caught every time; B is then
// released, confirms, and refuses the session once the DELETE is
// answered. One session after another.
func TestDeleteWaitsForALateReplica(t *testing.T) {
	t.Parallel()
	var held atomic.Pointer[chan struct{}] // B's gate while armed
	awaiting := make(chan string, 1)
	rs := startApartHooked(t, []string{"127.0.0.1", "localhost"}, func(i int, r *pgreplica.Replica) {
		if i == 0 {
			pgreplica.OnConfirmAwaiting(r, func(about string) { awaiting <- about })
			return
		}
		pgreplica.OnRelayHeard(r, func(_, kind string) {
			if kind != backend.RelayChanged {
				return
			}
			if gate := held.Swap(nil); gate != nil {
				<-*gate
			}
		})
	}, pgreplica.ConfirmWait(time.Minute))
	a, b := rs[0].url, rs[1].url
	for i := range 40 {
		gate := make(chan struct{})
		held.Store(&gate)
		code, sid, err := send(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if err != nil || code != http.StatusOK {
			close(gate)
			t.Fatalf("session %d: initialize: %d, %v", i, code, err)
		}
		if code, _, err := send(b, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); err != nil || code != http.StatusOK {
			close(gate)
			t.Fatalf("session %d: ping on B: %d, %v", i, code, err)
		}
		deleted := make(chan int, 1)
		go func() {
			code, _, _ := send(a, sid, "")
			deleted <- code
		}()
		select {
		case got := <-awaiting:
			if got != "end of session "+sid {
				t.Fatalf("session %d: the end awaited is %s, want %s", i, got, sid)
			}
			close(gate)
		case code := <-deleted:
			close(gate)
			t.Fatalf("session %d: the DELETE was answered (%d) while B had not heard of it", i, code)
		}
		if code := <-deleted; code != http.StatusNoContent {
			t.Fatalf("session %d: DELETE: %d", i, code)
		}
		if code, _, err := send(b, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); err != nil || code != http.StatusNotFound {
			t.Fatalf("session %d: ping on B once the DELETE was answered: %d, %v; want 404", i, code, err)
		}
	}
}

// A log level set on one replica holds on another once the setLevel is
// answered, however late that replica hears of it: B's listener is held
// (on the notice of the session's start) until A's change has begun
// waiting for B; B then confirms, and a tool on B sees the new level.
func TestSessionChangeWaitsForALateReplica(t *testing.T) {
	t.Parallel()
	var held atomic.Pointer[chan struct{}]
	awaiting := make(chan string, 1)
	rs := startApartHooked(t, []string{"127.0.0.1", "localhost"}, func(i int, r *pgreplica.Replica) {
		if i == 0 {
			pgreplica.OnConfirmAwaiting(r, func(about string) { awaiting <- about })
			return
		}
		pgreplica.OnRelayHeard(r, func(_, kind string) {
			if gate := held.Swap(nil); gate != nil && kind == backend.RelayChanged {
				<-*gate
			}
		})
	}, pgreplica.ConfirmWait(time.Minute))
	a, b := rs[0].url, rs[1].url
	for i, lv := range []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
		gate := make(chan struct{})
		held.Store(&gate)
		code, sid, err := send(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if err != nil || code != http.StatusOK {
			close(gate)
			t.Fatalf("session %d: initialize: %d, %v", i, code, err)
		}
		set := make(chan int, 1)
		go func() {
			code, _, _ := send(a, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"`+lv+`"}}`)
			set <- code
		}()
		select {
		case got := <-awaiting:
			close(gate)
			if got != "change of session "+sid {
				t.Fatalf("session %d: the change awaited is %q", i, got)
			}
		case code := <-set:
			close(gate)
			t.Fatalf("session %d: setLevel was answered (%d) while B had not heard of it", i, code)
		}
		if code := <-set; code != http.StatusOK {
			t.Fatalf("session %d: setLevel: %d", i, code)
		}
		req, _ := http.NewRequest(http.MethodPost, b, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"level"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("X-User", "alice")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultText(t, events(resp)); got != lv {
			t.Fatalf("session %d: the level on B once setLevel was answered on A: %q, want %q", i, got, lv)
		}
		resp.Body.Close()
	}
}

// A replica registered as listening that never confirms (its backend
// lives, but it does not hear) holds an end up ConfirmWait at most: the
// DELETE is still answered, and the session is gone.
func TestEndIsAnsweredWhenAReplicaDoesNotConfirm(t *testing.T) {
	t.Parallel()
	base, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	pool := pgtest.Pool(t, base, schema)
	r, err := pgreplica.Open(ctx, pool, pgreplica.ConfirmWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(app{}, r.Options()...)
	h := plug.New(srv, plug.Identify(func(req *http.Request) (*sake.Identity, error) {
		return &sake.Identity{Subject: req.Header.Get("X-User")}, nil
	}))
	ts := httptest.NewServer(h)
	defer func() { ts.Close(); h.Close(); _ = srv.Shutdown(ctx); _ = r.Close(ctx) }()
	// A silent member: a connection of its own, alive, that listens to
	// nothing.
	silent, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Release()
	if _, err := silent.Exec(ctx, `INSERT INTO sake_session_listeners (member, pid, backend_start)
		SELECT 'silent', pg_backend_pid(), backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	// And one whose backend is gone, forgotten by the next end.
	if _, err := pool.Exec(ctx, `INSERT INTO sake_session_listeners (member, pid) VALUES ('gone', 0)`); err != nil {
		t.Fatal(err)
	}
	code, sid, err := send(ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if err != nil || code != http.StatusOK {
		t.Fatalf("initialize: %d, %v", code, err)
	}
	if code, _, err := send(ts.URL, sid, ""); err != nil || code != http.StatusNoContent {
		t.Fatalf("DELETE with a member that never confirms: %d, %v; want 204", code, err)
	}
	if code, _, err := send(ts.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); err != nil || code != http.StatusNotFound {
		t.Fatalf("after the DELETE: %d, %v; want 404", code, err)
	}
	var members []string
	rows, err := pool.Query(ctx, `SELECT member FROM sake_session_listeners ORDER BY member`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m string
		_ = rows.Scan(&m)
		members = append(members, m)
	}
	rows.Close()
	if want := []string{r.ID(), "silent"}; fmt.Sprint(members) != fmt.Sprint(sortedPair(want)) {
		t.Errorf("listening replicas after the end: %v, want %v (the one whose backend is gone forgotten)", members, sortedPair(want))
	}
}

// sortedPair returns p's two strings in order.
func sortedPair(p []string) []string {
	if p[0] > p[1] {
		return []string{p[1], p[0]}
	}
	return p
}
