package pgreplica_test

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/pgreplica"
)

func strconvQuote(s string) string { return strconv.Quote(s) }

// A message for a session's own stream is relayed only while some replica
// holds that stream, as far as the sender has heard: none is sent before
// the GET opens or after it closes, and one raised once the opening has
// been delivered reaches the stream on the other replica.
func TestStreamMessageRelayedOnlyWhileAStreamIsHeld(t *testing.T) {
	t.Parallel()
	rs := start(t, 2)
	a, b := rs[0], rs[1]
	var sent atomic.Int32
	pgreplica.OnRelaySent(a.r, func(_, kind string) {
		if kind == backend.RelaySend {
			sent.Add(1)
		}
	})
	sid := initialize(t, a.url, "alice")
	post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	shout := func(text string) {
		t.Helper()
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{"text":"` + text + `"}}}`
		if got := resultText(t, events(post(t, a.url, "alice", sid, call))); got != "sent" {
			t.Fatalf("shout %s on A: %q", text, got)
		}
	}
	shout("no stream")
	if n := sent.Load(); n != 0 {
		t.Fatalf("A relayed %d messages for a stream no replica holds", n)
	}

	stream, closeStream := openStream(t, b.url, sid)
	a.waitHeard(t, sid, "stream")
	shout("held on B")
	if n := sent.Load(); n != 1 {
		t.Fatalf("A relayed %d messages for B's stream, want 1", n)
	}
	m := <-stream
	if p, _ := m["params"].(map[string]any); p == nil || p["data"] != "held on B" {
		t.Fatalf("B's stream got %v", m)
	}

	closeStream()
	a.waitHeard(t, sid, "stream")
	shout("closed")
	if n := sent.Load(); n != 1 {
		t.Fatalf("A relayed a message after B's stream closed: %d sent", n)
	}
}

// A replica whose memory does not know the session (here: it keeps no
// record) relays as before: it cannot tell that no stream is held.
func TestStreamMessageRelayedWhenUnknown(t *testing.T) {
	t.Parallel()
	rs := start(t, 1)
	a := rs[0]
	pgreplica.SetSessionCacheOff(a.r)
	var sent atomic.Int32
	pgreplica.OnRelaySent(a.r, func(_, kind string) {
		if kind == backend.RelaySend {
			sent.Add(1)
		}
	})
	sid := initialize(t, a.url, "alice")
	post(t, a.url, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{"text":"x"}}}`
	if got := resultText(t, events(post(t, a.url, "alice", sid, call))); got != "sent" {
		t.Fatalf("shout on A: %q", got)
	}
	if n := sent.Load(); n != 1 {
		t.Fatalf("A relayed %d messages without knowing the session's stream, want 1", n)
	}
}
