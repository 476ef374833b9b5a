package middleware_test

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
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
