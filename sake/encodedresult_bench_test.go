package sake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

// BenchmarkEncodedToolResult measures a tools/call whose tool hands back
// a remote server's result left encoded, as a proxy does: received
// (ToolResultFromWire) and written into the reply. The text is a few
// kilobytes, like a file read through a gateway.
func BenchmarkEncodedToolResult(b *testing.B) {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 64)
	raw, _ := json.Marshal(map[string]any{
		"content":    []map[string]string{{"type": "text", "text": text}},
		"resultType": "complete",
		"_meta":      map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "remote", "version": "1"}},
	})
	srv := sake.MustNew(nil, sake.Name("local", "1.0.0"))
	_ = srv.AddTool(sake.NewTool("relay", func(*sake.Context, json.RawMessage) (*sake.ToolResult, error) {
		return protocol.ToolResultFromWire(raw)
	}))
	buf := make([]byte, 0, 8192)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		r := transport.Decode(srv, []byte(relayCall), nil).HandleInto(ctx, &buf)
		if len(r.Body) < len(text) {
			b.Fatalf("reply %s", r.Body)
		}
	}
}
