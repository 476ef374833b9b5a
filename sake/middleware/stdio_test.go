package middleware_test

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// serveLines runs srv over stdio on the given lines and returns the lines
// it wrote back.
func serveLines(t *testing.T, srv *sake.Server, lines ...string) []string {
	t.Helper()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := stdio.Serve(context.Background(), srv, in, &out, stdio.MaxConcurrent(1), stdio.Logger(quiet)); err != nil {
		t.Fatal(err)
	}
	var got []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	return got
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func stdioCall(id int) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{` + modernMeta + `,"name":"echo","arguments":{"text":"x"}}}`
}

// Over stdio a call over the limit is the JSON-RPC error, with the delay in
// its data.
func TestRateLimitOverStdio(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := limited(t, clk)
	var lines []string
	for i := 1; i <= 11; i++ {
		lines = append(lines, stdioCall(i))
	}
	got := serveLines(t, srv, lines...)
	if len(got) != 11 {
		t.Fatalf("%d answers: %v", len(got), got)
	}
	for _, l := range got[:10] {
		if rpcOf(t, []byte(l)) != nil {
			t.Fatalf("within the limit: %s", l)
		}
	}
	e := rpcOf(t, []byte(got[10]))
	if e == nil || e.Code != sake.CodeRateLimited || retryMs(t, e) != 100 || !strings.Contains(got[10], `"id":11`) {
		t.Fatalf("11th: %s", got[10])
	}
}

// Over stdio: a timed-out call, an oversized result and a masked error are
// the same results as elsewhere, and the access log has one record per
// message with the transport.
func TestMiddlewareOverStdio(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	limits, err := middleware.ToolLimits(middleware.ToolLimit{Tools: []string{"wait"}, Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	type server struct {
		*blocking
		big
		secretive
	}
	srv := sake.MustNew(server{blocking: newBlocking()},
		sake.Use(middleware.MaskErrors(quiet), limits, middleware.ResultCap{MaxBytes: 100}.Middleware()),
		middleware.AccessLog{Logger: logs.logger()}.Option(), sake.Logger(quiet))
	callOf := func(id int, tool, args string) string {
		return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{` + modernMeta + `,"name":"` + tool + `","arguments":` + args + `}}`
	}
	got := serveLines(t, srv,
		callOf(1, "wait", `{"text":"x"}`),
		callOf(2, "text", `{"n":1000}`),
		callOf(3, "broken", `{"text":"x"}`),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	if len(got) != 3 {
		t.Fatalf("answers: %v", got)
	}
	for i, want := range []string{"did not finish within 1ms", "over this server's limit of 100 bytes", "Tool broken failed. The error was logged with reference"} {
		if !strings.Contains(got[i], want) || !strings.Contains(got[i], `"isError":true`) {
			t.Errorf("answer %d: %s, want %q", i+1, got[i], want)
		}
	}
	recs := logs.records(t)
	if len(recs) != 4 {
		t.Fatalf("%d records: %v", len(recs), recs)
	}
	for _, r := range recs {
		if r["transport"] != "stdio" {
			t.Errorf("record: %v", r)
		}
	}
}
