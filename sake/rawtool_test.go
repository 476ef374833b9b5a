package sake_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// TestRawToolFunction: a tool function that takes its arguments as they
// came and returns a *ToolResult (a proxy's tools) gets the arguments,
// its error and its panic become what they become for any tool, and a
// call of it costs no allocation for reflection.
func TestRawToolFunction(t *testing.T) {
	srv := sake.MustNew(nil, sake.Name("raw", "1.0.0"), sake.Logger(slog.New(slog.DiscardHandler)))
	res := sake.TextResult("ok")
	err := srv.AddTool(
		sake.NewTool("echo", func(_ *sake.Context, args json.RawMessage) (*sake.ToolResult, error) {
			return sake.TextResult(string(args)), nil
		}),
		sake.NewTool("same", func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) { return res, nil }),
		sake.NewTool("fail", func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) { return nil, errors.New("broken") }),
		sake.NewTool("panic", func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) { panic("boom") }),
	)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		buf := make([]byte, 0, 512)
		return string(transport.Decode(srv, []byte(body), nil).HandleInto(context.Background(), &buf).Body)
	}
	for _, c := range []struct{ name, args, want string }{
		{"echo", `{"a":1}`, `"text":"{\"a\":1}"`},
		{"fail", `{}`, `"text":"broken"`},
		{"panic", `{}`, `failed with an internal error`},
	} {
		if got := call(c.name, c.args); !strings.Contains(got, c.want) || (c.name != "echo") != strings.Contains(got, `"isError":true`) {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	same := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"same","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(200, func() {
		buf = transport.Decode(srv, same, nil).HandleInto(context.Background(), &buf).Body[:0]
	})
	// Through reflection it took 10 (2 for its arguments and results).
	if allocs > 8 {
		t.Errorf("a call took %v allocations, want at most 8", allocs)
	}
}
