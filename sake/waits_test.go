package sake_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// countingAwaiter is a stream that counts AwaitingAnswer.
type countingAwaiter struct{ n atomic.Int64 }

func (s *countingAwaiter) Send([]byte)     {}
func (s *countingAwaiter) AwaitingAnswer() { s.n.Add(1) }

func TestWaitsOutsideTellsTheTransport(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	if err := srv.AddTool(sake.NewTool("remote", func(c *sake.Context) (string, error) {
		c.WaitsOutside()
		return "done", nil
	})); err != nil {
		t.Fatal(err)
	}
	stream := &countingAwaiter{}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remote","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
	if reply := srv.Handle(context.Background(), []byte(msg), &sake.Inbound{Stream: stream}); reply.ErrorCode != 0 {
		t.Fatalf("the call = %s", reply.Body)
	}
	if n := stream.n.Load(); n != 1 {
		t.Errorf("AwaitingAnswer was called %d times; want 1", n)
	}
	// Without a stream that takes it (HTTP, in memory), it does nothing.
	if reply := srv.Handle(context.Background(), []byte(msg), nil); reply.ErrorCode != 0 {
		t.Fatalf("the call without a stream = %s", reply.Body)
	}
}
