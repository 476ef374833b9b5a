package sake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestPanicLogNamesTheTool: a panic in a tool is logged with the name the
// caller used, including the namespaced name of a mounted tool.
func TestPanicLogNamesTheTool(t *testing.T) {
	var logs lockedBuffer
	srv := sake.MustNew(nil, sake.Name("host", "1.0.0"), sake.Logger(slog.New(slog.NewTextHandler(&logs, nil))))
	boom := func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) { panic("boom") }
	child := sake.MustNew(nil, sake.Name("child", "1.0.0"), sake.Logger(slog.New(slog.DiscardHandler)))
	if err := child.AddTool(sake.NewTool("boom", boom)); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddTool(sake.NewTool("own_boom", boom)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Mount("ns", child); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"own_boom", "ns_boom"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		buf := make([]byte, 0, 512)
		got := string(transport.Decode(srv, []byte(body), nil).HandleInto(context.Background(), &buf).Body)
		if !strings.Contains(got, "Tool "+name+" failed with an internal error.") {
			t.Fatalf("%s: %s", name, got)
		}
		if want := `msg="sake: panic in tool ` + name + `"`; !strings.Contains(logs.String(), want) {
			t.Fatalf("log lacks %s:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "panic in tool boom") {
		t.Fatalf("a mounted tool was logged under its child name:\n%s", logs.String())
	}
}
