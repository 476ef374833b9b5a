package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// A request that ends when the access log's clock anchor is over a second
// old takes a new one, and its record's time is the time it ended.
func TestAccessLogClockAnchorRenewed(t *testing.T) {
	var out bytes.Buffer
	l := AccessLog{Logger: slog.New(slog.NewJSONHandler(&out, nil))}.build()
	old := time.Now().Add(-2 * anchorAge)
	l.anchor.Store(&old)
	before := time.Now()
	_, done := l.request(context.Background(), &sake.Request{Method: "ping"})
	done(sake.RequestDone{})
	after := time.Now()
	if l.anchor.Load() == &old {
		t.Fatal("the anchor was kept past its age")
	}
	if got := l.anchor.Load(); got.Before(before) || got.After(after) {
		t.Fatalf("new anchor %v, want one taken between %v and %v", got, before, after)
	}
	var rec struct {
		Time time.Time `json:"time"`
	}
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("record %q: %v", out.String(), err)
	}
	if rec.Time.Before(before.Round(0)) || rec.Time.After(after.Round(0)) {
		t.Fatalf("record at %v, the request ran from %v to %v", rec.Time, before, after)
	}
	// A young anchor is kept.
	young := l.anchor.Load()
	_, done = l.request(context.Background(), &sake.Request{Method: "ping"})
	done(sake.RequestDone{})
	if l.anchor.Load() != young {
		t.Fatal("an anchor younger than its age was replaced")
	}
}

// A pending that writes records for several callers and tools in turn
// keeps the text of its last record's middle only for a record made of
// the same: each record names its own caller, tool and protocol version.
// The records stay in the sink until it closes while the pending encodes
// the next ones into the same buffer: the sink holds a copy.
func TestAccessLogMiddleKeptPerCallerAndTool(t *testing.T) {
	var out bytes.Buffer
	sink := NewJSONSink(&out, nil)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := AccessLog{Logger: slog.New(sink), Clock: func() time.Time { return at }}.build()
	p := l.pool.New().(*pending)
	type want struct{ subject, clientID, component, ver string }
	call := func(sub, client, tool, ver string) (*sake.Request, want) {
		req := &sake.Request{Method: "tools/call", ID: json.RawMessage("1"), Identity: &sake.Identity{Subject: sub, ClientID: client}, ProtocolVersion: ver}
		req.Params = &sake.Params{Name: tool}
		w := want{"sub:" + sub, client, tool, ver}
		if sub == "" {
			w.subject = "client:" + client
		}
		return req, w
	}
	var wants []want
	for _, c := range [][4]string{
		{"alice", "app", "echo", "2025-11-25"},
		{"alice", "app", "echo", "2025-11-25"}, // the kept middle
		{"bob", "app", "echo", "2025-11-25"},
		{"bob", "app", "add", "2025-11-25"},
		{"bob", "other", "add", "2025-11-25"},
		{"", "other", "add", "2025-11-25"},
		{"", "other", "add", "2025-06-18"},
		{"alice", "app", "echo", "2025-11-25"},
	} {
		req, w := call(c[0], c[1], c[2], c[3])
		wants = append(wants, w)
		p.ctx, p.req, p.start = context.Background(), req, at
		l.done(p, sake.RequestDone{})
	}
	if !p.midKept {
		t.Fatal("no middle kept")
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	for i, w := range wants {
		var rec struct {
			Subject   string `json:"subject"`
			ClientID  string `json:"client_id"`
			Component string `json:"component"`
			Version   string `json:"protocol_version"`
			Method    string `json:"method"`
		}
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		got := want{rec.Subject, rec.ClientID, rec.Component, rec.Version}
		if got != w || rec.Method != "tools/call" {
			t.Errorf("record %d: %+v (method %q), want %+v", i, got, rec.Method, w)
		}
	}
	if dec.More() {
		t.Error("more records than requests")
	}
}
