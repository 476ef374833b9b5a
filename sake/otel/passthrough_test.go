package otel_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

// The results a remote wrote: an escape that encoding them again would
// write as the letter itself, and a member this library does not know.
const (
	remoteOK     = `{"content":[{"type":"text","text":"a\/b"}],"x-extra":true}`
	remoteFailed = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2}`
)

// relay has tools "ok" and "failed" on a server with opts, which answer
// remoteOK and remoteFailed as they came (protocol.ToolResultFromWire),
// as a proxy does; it returns a function that calls one in the modern era.
func relay(t *testing.T, opts ...sake.Option) func(tool string) string {
	t.Helper()
	srv := sake.MustNew(nil, append([]sake.Option{sake.Name("relay", "1.0.0")}, opts...)...)
	for name, raw := range map[string]string{"ok": remoteOK, "failed": remoteFailed} {
		if err := srv.AddTool(sake.NewTool(name, func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) {
			return protocol.ToolResultFromWire([]byte(raw))
		})); err != nil {
			t.Fatal(err)
		}
	}
	return func(tool string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		buf := make([]byte, 0, 512)
		return string(transport.Decode(srv, []byte(body), nil).HandleInto(context.Background(), &buf).Body)
	}
}

// TestTelemetryKeepsEncodedResults: installed as documented (Option),
// tracing and metrics do not make the server decode a proxied tool
// result, and still record each call's span, duration and tool error.
func TestTelemetryKeepsEncodedResults(t *testing.T) {
	w := newWorld(t)
	call := relay(t, w.tel.Option())
	if got := call("ok"); !strings.Contains(got, `"text":"a\/b"`) || !strings.Contains(got, `"x-extra":true`) {
		t.Errorf("the result was not passed through as the remote wrote it: %s", got)
	}
	if got := call("failed"); !strings.Contains(got, remoteFailed[:len(remoteFailed)-1]) {
		t.Errorf("the error result was not passed through as the remote wrote it: %s", got)
	}
	want(t, w.span("tools/call ok"), map[string]string{"gen_ai.tool.name": "ok", "error.type": "", "gen_ai.tool.call.result": ""})
	want(t, w.span("tools/call failed"), map[string]string{"gen_ai.tool.name": "failed", "error.type": "tool_error"})
	m := w.metrics()
	if n, _ := sum(m["sake.server.tool.errors"], attribute.String("gen_ai.tool.name", "failed")); n != 1 {
		t.Errorf("tool errors of failed = %d, want 1", n)
	}
	if n, _ := histogramCount(m["mcp.server.operation.duration"], attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.tool.name", "ok"), attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("mcp.protocol.version", "2026-07-28")); n != 1 {
		t.Errorf("durations of ok = %d, want 1; metric: %+v", n, m["mcp.server.operation.duration"])
	}
}

// TestTelemetryRecordingResultsDecodesThem: with RecordToolIO the hooks
// read the results they record, so those are decoded for them and the
// span holds the result.
func TestTelemetryRecordingResultsDecodesThem(t *testing.T) {
	w := newWorld(t, sakeotel.RecordToolIO("ok"))
	if got := relay(t, w.tel.Option())("ok"); strings.Contains(got, "x-extra") || !strings.Contains(got, `"text":"a/b"`) {
		t.Errorf("a recorded result must be decoded: %s", got)
	}
	if r := attrs(w.span("tools/call ok"))["gen_ai.tool.call.result"]; !strings.Contains(r, `"text":"a/b"`) {
		t.Errorf("recorded result = %q", r)
	}
}
