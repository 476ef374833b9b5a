package plug_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/plug"
)

// outage is the error of a session store that cannot be reached; it says
// when to try again.
type outage struct{}

func (outage) Error() string             { return "the database is down" }
func (outage) RetryAfter() time.Duration { return 7 * time.Second }

// flakyStore is a backend.SessionStore in memory that fails while down.
type flakyStore struct {
	down atomic.Bool
	mu   sync.Mutex
	recs map[string]backend.SessionRecord
}

func (st *flakyStore) SaveSession(_ context.Context, rec *backend.SessionRecord) error {
	if st.down.Load() {
		return outage{}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.recs == nil {
		st.recs = make(map[string]backend.SessionRecord)
	}
	st.recs[rec.ID] = *rec
	return nil
}

func (st *flakyStore) TouchSession(ctx context.Context, id string) (*backend.SessionRecord, error) {
	return st.LoadSession(ctx, id)
}

func (st *flakyStore) LoadSession(_ context.Context, id string) (*backend.SessionRecord, error) {
	if st.down.Load() {
		return nil, outage{}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, ok := st.recs[id]
	if !ok {
		return nil, nil
	}
	return &rec, nil
}

func (st *flakyStore) DeleteSession(_ context.Context, id string) error {
	if st.down.Load() {
		return outage{}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.recs, id)
	return nil
}

func (st *flakyStore) Relay(context.Context, backend.SessionRelay) error { return nil }

func (st *flakyStore) ListenRelays(func(backend.SessionRelay)) (stop func()) { return func() {} }

// wantUnavailable checks a 503 that tells the client to retry, with
// Retry-After from the store's error, and a message saying what failed.
func wantUnavailable(t *testing.T, resp *http.Response, what string) {
	t.Helper()
	r := decodeUnavailable(t, resp, what)
	if strings.Contains(r.Error.Message, "not found") || strings.Contains(r.Error.Message, "Too many") {
		t.Errorf("%s: message %q should say the session store failed", what, r.Error.Message)
	}
}

// While the session store is down, a session's messages get 503 and
// Retry-After, not 404: the session is not known to be gone, and a client
// told it is would start over. Once the store is back the session goes
// on; a session the store does not have is still 404.
func TestSessionStoreOutageIsNotSessionNotFound(t *testing.T) {
	t.Parallel()
	st := &flakyStore{}
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.SessionStore(st))
	ts, _ := serveServer(t, srv)
	sid := initialize(t, ts, nil)

	st.down.Store(true)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp := do(t, ts, http.MethodPost, ping, legacyHeaders(sid))
	r := decodeUnavailable(t, resp, "a request")
	if string(r.ID) != "2" {
		t.Errorf("a request: id %s, want 2", r.ID)
	}
	wantUnavailable(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, legacyHeaders(sid)), "a notification")
	wantUnavailable(t, do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":"q1","result":{}}`, legacyHeaders(sid)), "a response")
	hdr := legacyHeaders(sid)
	hdr.Set("Accept", "text/event-stream")
	wantUnavailable(t, do(t, ts, http.MethodGet, "", hdr), "a GET")
	wantUnavailable(t, do(t, ts, http.MethodDelete, "", legacyHeaders(sid)), "a DELETE")

	st.down.Store(false)
	if r := readJSON(t, do(t, ts, http.MethodPost, ping, legacyHeaders(sid)), http.StatusOK); r.Error != nil {
		t.Fatalf("after the outage: %+v", r.Error)
	}
	wantError(t, do(t, ts, http.MethodPost, ping, legacyHeaders("no-such-session")), http.StatusNotFound, sake.CodeInvalidRequest)
}

// An initialize the store cannot record says so, with 503 and Retry-After:
// it is not "too many sessions", and no session id is issued.
func TestSessionStoreOutageRefusesInitializeForWhatItIs(t *testing.T) {
	t.Parallel()
	st := &flakyStore{}
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.SessionStore(st))
	ts, _ := serveServer(t, srv)
	st.down.Store(true)
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, legacyHeaders(""))
	r := decodeUnavailable(t, resp, "initialize")
	if string(r.ID) != "1" {
		t.Errorf("initialize: id %s, want 1", r.ID)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a refused initialize issued a session id")
	}
	st.mu.Lock()
	n := len(st.recs)
	st.mu.Unlock()
	if n != 0 {
		t.Errorf("the store holds %d sessions", n)
	}
}

// At the server's session limit initialize is refused as such: 503 with
// Retry-After, and a message that says too many sessions.
func TestSessionLimitRefusesInitializeForWhatItIs(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 1}))
	ts, _ := serveServer(t, srv)
	sid := initialize(t, ts, nil)
	// The session is held (a GET stream is open), so it cannot be evicted.
	hdr := legacyHeaders(sid)
	hdr.Set("Accept", "text/event-stream")
	get := do(t, ts, http.MethodGet, "", hdr)
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, legacyHeaders(""))
	r := wantError(t, resp, http.StatusServiceUnavailable, sake.CodeServerBusy)
	if resp.Header.Get("Retry-After") == "" || !strings.Contains(strings.ToLower(r.Error.Message), "too many sessions") {
		t.Errorf("Retry-After %q, message %q", resp.Header.Get("Retry-After"), r.Error.Message)
	}
}

// decodeUnavailable is wantUnavailable returning the decoded body.
func decodeUnavailable(t *testing.T, resp *http.Response, what string) rpc {
	t.Helper()
	r := wantError(t, resp, http.StatusServiceUnavailable, sake.CodeServerBusy)
	if got := resp.Header.Get("Retry-After"); got != "7" {
		t.Errorf("%s: Retry-After %q, want 7", what, got)
	}
	if !strings.Contains(r.Error.Message, "session store") {
		t.Errorf("%s: message %q should say the session store failed", what, r.Error.Message)
	}
	return r
}

// serveServer starts an httptest server for srv behind a plug.Handler.
func serveServer(t *testing.T, srv *sake.Server, opts ...plug.Option) (*httptest.Server, *plug.Handler) {
	t.Helper()
	h := plug.New(srv, append([]plug.Option{plug.Logger(quiet)}, opts...)...)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts, h
}
