package sake_test

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// BenchmarkServerLog sends a log message outside any request to 64
// handshake-era sessions, half of whose level admits it.
func BenchmarkServerLog(b *testing.B) {
	srv := sake.MustNew(nil)
	_ = srv.AddTool(sake.NewTool("noop", func(*sake.Context) (string, error) { return "", nil }))
	ctx := context.Background()
	for i := range 64 {
		c, err := client.Connect(ctx, memory.Transport(srv), client.ProtocolVersion(protocol.LegacyVersion))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		level := sake.LevelInfo
		if i%2 == 1 {
			level = sake.LevelError
		}
		if err := c.SetLogLevel(ctx, level); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		srv.Log(sake.LevelWarning, "bench", "a message")
	}
}
