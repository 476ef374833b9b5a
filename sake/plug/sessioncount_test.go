package plug_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// The server evicts an address's idle sessions to make room for its new
// ones; the handler stops counting an evicted session at once, so one
// address opening many sessions fills neither the handler's cap nor
// anyone else's room.
func TestEvictedSessionsLeaveTheHandlersCount(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(echo{}, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxSessionsPerOwner: 2}))
	h := plug.New(srv, plug.Logger(quiet), plug.MaxSessions(3),
		plug.Identify(func(r *http.Request) (*sake.Identity, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return &sake.Identity{Subject: u}, nil
			}
			return nil, nil
		}))
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })

	var sids []string
	for range 10 { // one anonymous address, many sessions
		sids = append(sids, initialize(t, ts, nil))
	}
	// Its two newest sessions live; the rest were evicted, and are gone.
	for i, sid := range sids {
		resp := do(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, legacyHeaders(sid))
		if i < len(sids)-2 {
			wantError(t, resp, http.StatusNotFound, sake.CodeInvalidRequest)
		} else if r := readJSON(t, resp, http.StatusOK); r.Error != nil {
			t.Errorf("session %d: %+v", i, r.Error)
		}
	}
	// Someone else still gets a session.
	alice := http.Header{}
	alice.Set("X-User", "alice")
	initialize(t, ts, alice)
}
