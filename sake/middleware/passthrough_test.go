package middleware_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

// The results a remote wrote: an escape that encoding them again would
// write as the letter itself, and a member this library does not know.
const (
	remoteOK     = `{"content":[{"type":"text","text":"a\/b"}],"x-extra":true}`
	remoteFailed = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2}`
)

// relayServer has tools "ok" and "failed" that answer remoteOK and
// remoteFailed as they came (protocol.ToolResultFromWire), as a proxy does.
func relayServer(t *testing.T, opts ...sake.Option) *sake.Server {
	t.Helper()
	srv := sake.MustNew(nil, append([]sake.Option{sake.Name("relay", "1.0.0"), sake.Logger(quiet)}, opts...)...)
	for name, raw := range map[string]string{"ok": remoteOK, "failed": remoteFailed} {
		if err := srv.AddTool(sake.NewTool(name, func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) {
			return protocol.ToolResultFromWire([]byte(raw))
		})); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// relay calls tool on srv in the modern era and returns the reply.
func relay(srv *sake.Server, tool string) string {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	buf := make([]byte, 0, 512)
	return string(transport.Decode(srv, []byte(body), nil).HandleInto(context.Background(), &buf).Body)
}

// checkPassedThrough fails t unless both results reached the reply as
// the remote wrote them.
func checkPassedThrough(t *testing.T, srv *sake.Server) {
	t.Helper()
	if got := relay(srv, "ok"); !strings.Contains(got, `"text":"a\/b"`) || !strings.Contains(got, `"x-extra":true`) {
		t.Errorf("the result was not passed through as the remote wrote it: %s", got)
	}
	if got := relay(srv, "failed"); !strings.Contains(got, remoteFailed[:len(remoteFailed)-1]) {
		t.Errorf("the error result was not passed through as the remote wrote it: %s", got)
	}
}

// TestAccessLogKeepsEncodedResults: installed as documented (Option), the
// access log does not make the server decode a proxied tool result, and
// still records each call with its outcome and the reply's size.
func TestAccessLogKeepsEncodedResults(t *testing.T) {
	var logs logBuffer
	srv := relayServer(t, middleware.AccessLog{Logger: logs.logger()}.Option())
	checkPassedThrough(t, srv)
	recs := logs.records(t)
	if len(recs) != 2 {
		t.Fatalf("records = %v, want 2", recs)
	}
	for i, want := range []string{"ok", "tool_error"} {
		r := recs[i]
		if r["method"] != "tools/call" || r["outcome"] != want || r["bytes_out"].(float64) <= 0 {
			t.Errorf("record %d = %v, want outcome %s and bytes_out", i, r, want)
		}
	}
}

// TestRateLimiterKeepsEncodedResults: installed with sake.UseObserving,
// the rate limiter lets a proxied tool result pass undecoded and still
// refuses a call over its limit.
func TestRateLimiterKeepsEncodedResults(t *testing.T) {
	clk := newClock()
	rl, err := middleware.NewRateLimiter([]middleware.Limit{{Rate: 1, Burst: 2, Methods: []string{"tools/call"}}}, middleware.Clock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	srv := relayServer(t, sake.UseObserving(rl.Middleware()))
	checkPassedThrough(t, srv)
	if got := relay(srv, "ok"); !strings.Contains(got, `"code":-32029`) || strings.Contains(got, "x-extra") {
		t.Errorf("a third call at once is over the limit: %s", got)
	}
}
