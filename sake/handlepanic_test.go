package sake_test

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// A middleware that panics unwinds through Handle (a transport such as
// net/http recovers it); the request still leaves the server's count, so
// Shutdown does not wait for it forever.
func TestPanicThroughHandleLeavesNothingRunning(t *testing.T) {
	boom := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.Method == "tools/call" {
				panic("middleware bug")
			}
			return next(ctx, req)
		}
	}
	srv := sake.MustNew(nil, sake.Use(boom))
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"x"}}`)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the middleware's panic did not unwind through Handle")
			}
		}()
		srv.Handle(t.Context(), msg, nil)
	}()
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // Shutdown must not need to wait: nothing runs
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown after the panic: %v (a request is still counted as running)", err)
	}
}
