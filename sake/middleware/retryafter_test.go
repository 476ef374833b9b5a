package middleware_test

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// The -32029 a client receives says how long to wait, through
// (*protocol.Error).RetryAfter, in both eras, over HTTP and in memory.
func TestRateLimitRetryAfterReachesClients(t *testing.T) {
	t.Parallel()
	over := func(t *testing.T, call func() error) {
		t.Helper()
		for i := range 10 {
			if err := call(); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
		err := call()
		var e *protocol.Error
		if !errors.As(err, &e) || e.Code != protocol.CodeRateLimited {
			t.Fatalf("11th call: %v, want code %d", err, protocol.CodeRateLimited)
		}
		if got := e.RetryAfter(); got != 100*time.Millisecond {
			t.Errorf("RetryAfter() = %v, want 100ms (one token every 100ms)", got)
		}
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, limited(t, newClock()), opts...)
		over(t, func() error { _, err := c.CallTool("echo", map[string]any{"text": "hi"}); return err })
	})
	for _, era := range eras {
		t.Run("http "+era, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(endpoint(t, limited(t, newClock())))
			t.Cleanup(ts.Close)
			c, err := client.Connect(t.Context(), client.HTTP(ts.URL, ts.Client()), client.ProtocolVersion(era))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			over(t, func() error { _, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hi"}); return err })
		})
	}
}
