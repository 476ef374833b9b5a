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
