package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

// TestObservedResultsPassThrough: the gateway's health counters and Call
// hook do not make it decode what its remotes answer. A proxied tool
// result reaches the caller as the remote wrote it (an escape that
// encoding it again would write as the letter itself, its members in
// their order, one this library does not know), and the hook still sees
// each call and which failed.
func TestObservedResultsPassThrough(t *testing.T) {
	const ok = `{"content":[{"type":"text","text":"a\/b"}],"x-extra":true}`
	const failed = `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2}`
	remote := sake.MustNew(nil, sake.Name("raw", "1.0.0"))
	for name, raw := range map[string]string{"ok": ok, "failed": failed} {
		if err := remote.AddTool(sake.NewTool(name, func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) {
			return protocol.ToolResultFromWire([]byte(raw))
		})); err != nil {
			t.Fatal(err)
		}
	}
	ph := plug.New(remote)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close() })

	var mu sync.Mutex
	var events []gateway.CallEvent
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"rw": {"url": %q}}}`, ts.URL+"/mcp"),
		gateway.Observe(gateway.Hooks{Call: func(e gateway.CallEvent) { mu.Lock(); events = append(events, e); mu.Unlock() }}))

	call := func(tool string) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rw_` + tool + `","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		buf := make([]byte, 0, 512)
		return string(transport.Decode(g.Server(), []byte(body), nil).HandleInto(context.Background(), &buf).Body)
	}
	if got := call("ok"); !strings.Contains(got, `"text":"a\/b"`) || !strings.Contains(got, `"x-extra":true`) {
		t.Errorf("the result was not passed through as the remote wrote it: %s", got)
	}
	if got := call("failed"); !strings.Contains(got, `{"isError":true,"content":[{"type":"text","text":"no\/go"}],"x-extra":2`) {
		t.Errorf("the error result was not passed through as the remote wrote it: %s", got)
	}
	if got := call("missing"); !strings.Contains(got, `"error"`) {
		t.Errorf("a call to a tool the remote lacks: %s", got)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(events) != 3 {
		t.Fatalf("call events = %+v, want 3", events)
	}
	for i, want := range []bool{false, true, true} {
		if e := events[i]; e.Server != "rw" || e.Method != "tools/call" || e.Failed != want {
			t.Errorf("event %d = %+v, want Failed %v", i, e, want)
		}
	}
	if s := g.Status()[0]; s.Calls != 3 || s.Errors != 2 {
		t.Errorf("calls %d errors %d, want 3 and 2", s.Calls, s.Errors)
	}
}
