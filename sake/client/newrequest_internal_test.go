package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// TestNewRequestHeaders: a request of each era goes with its headers,
// the values every request shares among them, and making a request (the
// request, its URL, its body, its header map, the values of its own)
// costs 9 allocations in the 2026-07-28 era, 4 fewer than when each
// header value was a slice of its own.
func TestNewRequestHeaders(t *testing.T) {
	h := HTTP("http://127.0.0.1:1/mcp", nil).(*httpTransport)
	modern := &message{id: 7, method: "tools/call", body: []byte(`{}`), era: protocol.EraModern, name: "echo", hasName: true}
	req, err := h.newRequest(context.Background(), http.MethodPost, modern)
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{
		"Mcp-Protocol-Version": {protocol.ModernVersion}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"},
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
	}
	check := func(req *http.Request, want http.Header) {
		t.Helper()
		if len(req.Header) != len(want) {
			t.Errorf("headers %v, want %v", req.Header, want)
		}
		for k, v := range want {
			if got := req.Header[k]; !slices.Equal(got, v) || cap(got) != 1 {
				t.Errorf("%s: %q (capacity %d), want %q of capacity 1", k, got, cap(got), v)
			}
		}
	}
	check(req, want)
	// Appending to a shared value leaves the next request's as it was.
	req.Header.Add("Accept", "text/plain")
	req.Header.Add("Mcp-Method", "x")
	if allocs := testing.AllocsPerRun(100, func() { _, _ = h.newRequest(context.Background(), http.MethodPost, modern) }); allocs > 9 {
		t.Errorf("a modern request took %v allocations to make, want at most 9", allocs)
	}
	req, _ = h.newRequest(context.Background(), http.MethodPost, modern)
	check(req, want)

	h.established(protocol.EraLegacy, "2025-11-25")
	h.session = "s1"
	legacy := &message{id: 8, method: "tools/call", body: []byte(`{}`), era: protocol.EraLegacy}
	req, _ = h.newRequest(context.Background(), http.MethodPost, legacy)
	check(req, http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Session-Id": {"s1"},
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}})
	req.Header.Add("Mcp-Session-Id", "s2")
	req, _ = h.newRequest(context.Background(), http.MethodGet, nil)
	check(req, http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Session-Id": {"s1"}, "Accept": {"text/event-stream"}})
}

// TestOnlySessionRequestsAwaitTheGETStream: while a request of the
// handshake era is in flight it is registered to be answered from the
// session's GET stream too; a 2026-07-28 request, which belongs to no
// session, is not (its registration cost 2 allocations a call).
func TestOnlySessionRequestsAwaitTheGETStream(t *testing.T) {
	var h *httpTransport
	pending := make(chan int, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		pending <- len(h.pending)
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":5,"result":{}}`))
	}))
	defer ts.Close()
	h = HTTP(ts.URL+"/mcp", ts.Client()).(*httpTransport)
	h.max = 1 << 20
	for _, c := range []struct {
		era  protocol.Era
		want int
	}{{protocol.EraModern, 0}, {protocol.EraLegacy, 1}} {
		m := &message{id: 5, method: "ping", body: []byte(`{}`), era: c.era}
		if _, err := h.roundTrip(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		if got := <-pending; got != c.want {
			t.Errorf("era %v: %d requests awaited the GET stream during the call, want %d", c.era, got, c.want)
		}
		if len(h.pending) != 0 {
			t.Errorf("era %v: %d requests still await the GET stream after the call", c.era, len(h.pending))
		}
	}
}
