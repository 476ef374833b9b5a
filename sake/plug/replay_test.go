package plug

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// liveBytes sums the frames a stream still keeps.
func liveBytes(sts ...*stream) int64 {
	var n int64
	for _, st := range sts {
		st.mu.Lock()
		for _, k := range st.ring {
			if f := k.frame.Load(); f != nil {
				n += int64(len(*f))
			}
		}
		st.mu.Unlock()
	}
	return n
}

func payload(i, size int) []byte {
	return []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", size)))
}

func TestReplayBoundedPerSession(t *testing.T) {
	t.Parallel()
	const budget = 2000
	h := newTestHandler(t, ReplayBytes(budget, 1<<20))
	sid := newSessionFor(t, h)
	e := entryFor(h, sid)
	a, b := e.newStream(false), e.newStream(false)
	for i := 0; i < 20; i++ {
		for _, st := range []*stream{a, b} {
			if err := st.emit(payload(i, 300), false); err != nil {
				t.Fatal(err)
			}
		}
		if got := e.replayBytes.Load(); got > budget || got != liveBytes(a, b) {
			t.Fatalf("after %d events each: the session accounts %d bytes, keeps %d, budget %d", i+1, got, liveBytes(a, b), budget)
		}
	}
	if h.replay.bytes.Load() != e.replayBytes.Load() {
		t.Fatalf("handler %d bytes, session %d", h.replay.bytes.Load(), e.replayBytes.Load())
	}
	// The newest events are kept, the oldest dropped: resuming from the
	// latest id works, resuming from the start is refused honestly.
	if replay, _, _, lost, ok := a.attach(newGetSink(), true, 18); !ok || lost || len(replay) != 2 {
		t.Fatalf("resume near the end: %d events, lost %v, ok %v", len(replay), lost, ok)
	}
	g := newGetSink()
	a.attach(g, false, 0)
	if _, _, _, lost, _ := a.attach(newGetSink(), true, 1); !lost {
		t.Fatal("a resumption across dropped events was not reported lost")
	}
	select {
	case <-g.stop:
		t.Fatal("a refused resumption evicted the stream's sink")
	default:
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, loopbackRequest(http.MethodGet, "", map[string]string{
		"Mcp-Session-Id": sid, "Accept": "text/event-stream", "Last-Event-ID": "1-1", "MCP-Protocol-Version": "2025-11-25"}))
	if w.Code != http.StatusGone || !strings.Contains(w.Body.String(), "-32600") {
		t.Fatalf("GET with a dropped Last-Event-ID: %d %s", w.Code, w.Body)
	}
	// One event larger than the whole budget is not kept at all.
	if err := b.emit(payload(99, budget), false); err != nil {
		t.Fatal(err)
	}
	if got := e.replayBytes.Load(); got > budget {
		t.Fatalf("an oversized event pinned %d bytes", got)
	}
	// Ending the session gives everything back.
	h.remove(e)
	if got := h.replay.bytes.Load(); got != 0 {
		t.Fatalf("after the session ended the handler still holds %d bytes", got)
	}
}

func TestReplayBoundedPerServer(t *testing.T) {
	t.Parallel()
	const total = 3000
	h := newTestHandler(t, ReplayBytes(1<<20, total))
	e1 := entryFor(h, newSessionFor(t, h))
	e2 := entryFor(h, newSessionFor(t, h))
	s1, s2 := e1.newStream(false), e2.newStream(false)
	for i := 0; i < 8; i++ {
		if err := s1.emit(payload(i, 300), false); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 10; i++ { // more than the whole budget
		if err := s2.emit(payload(i, 300), false); err != nil {
			t.Fatal(err)
		}
		if got := h.replay.bytes.Load(); got > total || got != liveBytes(s1, s2) {
			t.Fatalf("the handler accounts %d bytes, keeps %d, budget %d", got, liveBytes(s1, s2), total)
		}
	}
	// The oldest events anywhere went first: the first session's.
	if got := e1.replayBytes.Load(); got != 0 {
		t.Fatalf("the older session still keeps %d bytes", got)
	}
	if got := e2.replayBytes.Load(); got == 0 || got != h.replay.bytes.Load() {
		t.Fatalf("the newer session keeps %d of %d bytes", got, h.replay.bytes.Load())
	}
}

// Forgotten streams (beyond the retired ones a session remembers) give
// their bytes back, and resuming one is refused with 410, not 400.
func TestForgottenStreamsReleaseReplay(t *testing.T) {
	t.Parallel()
	h := newTestHandler(t)
	sid := newSessionFor(t, h)
	e := entryFor(h, sid)
	for i := 0; i < maxRetired+5; i++ {
		st := e.newStream(false)
		if err := st.emit(payload(i, 100), true); err != nil {
			t.Fatal(err)
		}
	}
	e.mu.Lock()
	var kept []*stream
	for _, st := range e.streams {
		kept = append(kept, st)
	}
	e.mu.Unlock()
	if got := e.replayBytes.Load(); got != liveBytes(kept...) || len(kept) != maxRetired {
		t.Fatalf("%d streams kept, %d bytes accounted, %d live", len(kept), got, liveBytes(kept...))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, loopbackRequest(http.MethodGet, "", map[string]string{
		"Mcp-Session-Id": sid, "Accept": "text/event-stream", "Last-Event-ID": "1-0", "MCP-Protocol-Version": "2025-11-25"}))
	if w.Code != http.StatusGone {
		t.Fatalf("GET for a forgotten stream: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, loopbackRequest(http.MethodGet, "", map[string]string{
		"Mcp-Session-Id": sid, "Accept": "text/event-stream", "Last-Event-ID": "999-0", "MCP-Protocol-Version": "2025-11-25"}))
	if w.Code != http.StatusBadRequest {
		t.Fatalf("GET for a stream never issued: %d %s", w.Code, w.Body)
	}
}

// The queue of kept events stays proportional to the live ones even when
// most are dropped out of order.
func TestFIFOCompacts(t *testing.T) {
	t.Parallel()
	e := &entry{budget: &replayBudget{max: 1 << 30}}
	var f fifo
	for i := 0; i < 10000; i++ {
		k := &kept{seq: uint64(i), size: 1, e: e}
		b := []byte("x")
		k.frame.Store(&b)
		if i > 0 {
			k.drop() // all but the first are dropped behind its back
		}
		f.push(k)
		f.trim(func() bool { return false })
	}
	if n := len(f.q) - f.head; n > 200 {
		t.Fatalf("the queue holds %d entries for 1 live event", n)
	}
}
