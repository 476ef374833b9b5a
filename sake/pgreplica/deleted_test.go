package pgreplica_test

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/pgreplica"
)

// deleteSession ends session sid with a DELETE on url.
func deleteSession(t *testing.T, url, user, sid string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-User", user)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
}

// A change that another replica saves after a DELETE it raced (its
// request read the session before the DELETE committed) does not bring
// the session back: the record stays deleted, and every replica refuses
// the session (404) once the end is delivered.
func TestDeletedSessionIsNotRevivedByALateChange(t *testing.T) {
	t.Parallel()
	rs := start(t, 2)
	a, b := rs[0], rs[1]
	sid := initialize(t, a.url, "alice")
	b.waitHeard(t, sid, backend.RelayChanged)
	rec, err := pgreplica.LoadSessionRecord(b.r, sid)
	if err != nil || rec == nil {
		t.Fatalf("the record before the DELETE: %v, %v", rec, err)
	}
	deleteSession(t, a.url, "alice", sid)
	b.waitHeard(t, sid, backend.RelayClosed)
	// B's late change: the log level a request read before the DELETE set.
	rec.LogLevel = 3
	if err := pgreplica.SaveSessionRecord(b.r, rec); err != nil {
		t.Fatalf("saving a change of an ended session: %v, want nil (the change is moot)", err)
	}
	if got, err := pgreplica.LoadSessionRecord(a.r, sid); err != nil || got != nil {
		t.Fatalf("after a late change the record is %+v, %v; want it to stay deleted", got, err)
	}
	for i, r := range rs {
		if resp := post(t, r.url, "alice", sid, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
			t.Errorf("replica %d after the DELETE: %d, want 404", i, resp.StatusCode)
		}
	}
}

// The same through HTTP: requests changing the session on B race a
// DELETE on A; once B has heard of the end, neither replica serves the
// session.
func TestDeleteRacingChangesOnAnotherReplica(t *testing.T) {
	t.Parallel()
	rs := start(t, 2)
	a, b := rs[0], rs[1]
	sid := initialize(t, a.url, "alice")
	post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				post(t, b.url, "alice", sid, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}`)
			}
		})
	}
	deleteSession(t, a.url, "alice", sid)
	b.waitHeard(t, sid, backend.RelayClosed)
	stop.Store(true)
	wg.Wait()
	for i, r := range rs {
		if resp := post(t, r.url, "alice", sid, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
			t.Errorf("replica %d after the DELETE: %d, want 404", i, resp.StatusCode)
		}
	}
}
