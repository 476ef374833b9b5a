package middleware_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// logBuffer collects JSON log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// records decodes the lines, dropping the time.
func (b *logBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

func (b *logBuffer) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(b, nil)) }

// secretive is a server whose tools fail in every way.
type secretive struct{}

func (secretive) Lookup(ctx *sake.Context, a textArgs) (string, error) {
	return "result-" + a.Text, nil
}
func (secretive) Broken(ctx *sake.Context, a textArgs) (string, error) {
	return "", errors.New("pq: password authentication failed for user admin at 10.0.0.5")
}
func (secretive) Refuse(ctx *sake.Context, a textArgs) (*sake.ToolResult, error) {
	return sake.ErrorResult("no such city: %s", a.Text), nil
}

// One record per request and notification, in both eras, with its method,
// component, subject, client, era, duration and outcome, and never the
// arguments or the result.
func TestAccessLog(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		var logs logBuffer
		clk := newClock()
		tick := func() time.Time { clk.Advance(5 * time.Millisecond); return clk.Now() }
		srv := sake.MustNew(secretive{}, middleware.AccessLog{Logger: logs.logger(), Clock: tick}.Option(), sake.Logger(quiet))
		c := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("alice"), saketest.ClientID("app"))...)
		if _, err := c.CallTool("lookup", map[string]any{"text": "secret-argument"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallTool("refuse", map[string]any{"text": "x"}); err == nil {
			t.Fatal("refuse succeeded")
		}
		if _, err := c.CallTool("nope", map[string]any{"text": "x"}); err == nil {
			t.Fatal("unknown tool succeeded")
		}
		all := logs.records(t)
		var calls []map[string]any
		for _, r := range all {
			if r["method"] == "tools/call" {
				calls = append(calls, r)
			}
		}
		if len(calls) != 3 {
			t.Fatalf("%d tools/call records: %v", len(calls), all)
		}
		want := map[string]any{"level": "INFO", "msg": "mcp request", "method": "tools/call", "component": "lookup", "subject": "sub:alice",
			"client_id": "app", "transport": "memory", "duration": float64(5 * time.Millisecond), "outcome": "ok"}
		for k, v := range want {
			if calls[0][k] != v {
				t.Errorf("%s = %v, want %v (%v)", k, calls[0][k], v, calls[0])
			}
		}
		if calls[0]["bytes_in"].(float64) == 0 || calls[0]["bytes_out"].(float64) == 0 {
			t.Errorf("bytes: %v", calls[0])
		}
		if calls[1]["outcome"] != "tool_error" || calls[1]["code"] != nil {
			t.Errorf("tool error: %v", calls[1])
		}
		if calls[2]["outcome"] != "error" || calls[2]["code"] != float64(sake.CodeInvalidParams) || calls[2]["level"] != "WARN" {
			t.Errorf("unknown tool: %v", calls[2])
		}
		era := "modern"
		if len(opts) > 0 {
			era = "legacy"
			var notes int
			for _, r := range all {
				if r["msg"] == "mcp notification" && r["method"] == "notifications/initialized" {
					notes++
				}
			}
			if notes != 1 {
				t.Errorf("%d records of notifications/initialized: %v", notes, all)
			}
		}
		if calls[0]["era"] != era {
			t.Errorf("era = %v, want %s", calls[0]["era"], era)
		}
		if s := logs.String(); strings.Contains(s, "secret-argument") || strings.Contains(s, "result-") {
			t.Errorf("the log holds arguments or results: %s", s)
		}
	})
}

// RecordArguments logs the arguments of the tools it names, and only
// those.
func TestAccessLogRecordArguments(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	srv := sake.MustNew(secretive{}, middleware.AccessLog{Logger: logs.logger(), RecordArguments: []string{"refuse"}}.Option(), sake.Logger(quiet))
	c := saketest.Connect(t, srv)
	_, _ = c.CallTool("lookup", map[string]any{"text": "hidden"})
	_, _ = c.CallTool("refuse", map[string]any{"text": "shown"})
	s := logs.String()
	if strings.Contains(s, "hidden") || !strings.Contains(s, `"arguments":"{\"text\":\"shown\"}"`) {
		t.Errorf("log: %s", s)
	}
}

// Over HTTP the log has the anonymous caller's address, and neither the
// token nor other headers.
func TestAccessLogOverHTTP(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	srv := sake.MustNew(secretive{}, middleware.AccessLog{Logger: logs.logger()}.Option(), sake.Logger(quiet))
	h := endpoint(t, srv)
	for _, era := range eras {
		c := newHTTPCaller(t, h, era, "203.0.113.9", "")
		if r := c.call("lookup"); r.Code != http.StatusOK {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
	}
	recs := logs.records(t)
	var n int
	for _, r := range recs {
		if r["method"] == "tools/call" {
			n++
			if r["subject"] != "addr:203.0.113.9" || r["transport"] != "http" {
				t.Errorf("record: %v", r)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d call records: %v", n, recs)
	}
	if strings.Contains(logs.String(), "application/json") {
		t.Error("the log holds headers")
	}
}

// With MaskErrors, a tool's own error reaches the log, with a reference,
// and not the client; results the tool made itself pass unchanged.
func TestMaskErrors(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		var logs logBuffer
		srv := sake.MustNew(secretive{}, sake.Use(middleware.MaskErrors(logs.logger())), sake.Logger(quiet))
		c := saketest.Connect(t, srv, opts...)
		_, err := c.CallTool("broken", map[string]any{"text": "x"})
		te := toolError(t, err)
		if strings.Contains(te.Error(), "password") || !strings.HasPrefix(te.Error(), "Tool broken failed. The error was logged with reference ") {
			t.Fatalf("masked: %q", te.Error())
		}
		ref := strings.Fields(strings.TrimPrefix(te.Error(), "Tool broken failed. The error was logged with reference "))[0]
		ref = strings.TrimSuffix(ref, ";")
		if s := logs.String(); !strings.Contains(s, "password authentication failed") || !strings.Contains(s, `"reference":"`+ref+`"`) {
			t.Errorf("log: %s (reference %s)", s, ref)
		}
		if _, err := c.CallTool("refuse", map[string]any{"text": "Oporto"}); err == nil || err.Error() != "no such city: Oporto" {
			t.Errorf("a result the tool made: %v", err)
		}
		if _, err := c.CallTool("lookup", map[string]any{}); err == nil || !strings.Contains(err.Error(), "Invalid arguments") {
			t.Errorf("invalid arguments: %v", err)
		}
	})
}

// With the default clock, a record's time falls between the call's start
// and its end, and its duration is no longer than the call took, through
// slog's handler and through a JSONSink alike.
func TestAccessLogDefaultClock(t *testing.T) {
	t.Parallel()
	for _, sinked := range []bool{false, true} {
		var logs logBuffer
		var h slog.Handler = slog.NewJSONHandler(&logs, nil)
		sink := middleware.NewJSONSink(&logs, nil)
		if sinked {
			h = sink
		}
		srv := sake.MustNew(secretive{}, middleware.AccessLog{Logger: slog.New(h)}.Option(), sake.Logger(quiet))
		c := saketest.Connect(t, srv)
		before := time.Now()
		if _, err := c.CallTool("lookup", map[string]any{"text": "x"}); err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Time     time.Time `json:"time"`
			Method   string    `json:"method"`
			Duration int64     `json:"duration"`
		}
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			if rec.Method == "tools/call" {
				break
			}
		}
		if rec.Method != "tools/call" {
			t.Fatalf("sink=%v: no record of the call in %s", sinked, logs.String())
		}
		if rec.Time.Before(before.Round(0)) || rec.Time.After(after.Round(0)) {
			t.Errorf("sink=%v: record at %v, the call ran from %v to %v", sinked, rec.Time, before, after)
		}
		if d := time.Duration(rec.Duration); d < 0 || d > after.Sub(before) {
			t.Errorf("sink=%v: duration %v, the call took %v", sinked, d, after.Sub(before))
		}
	}
}
