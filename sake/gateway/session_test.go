package gateway_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestGatewayRenewsAnExpiredRemoteSession: a handshake-era remote that
// forgets the gateway's session (404) gets a new handshake within the
// call; the caller's own session and the mount stay.
func TestGatewayRenewsAnExpiredRemoteSession(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := sake.MustNew(nil, sake.Name("old", "1.0.0"))
		if err := srv.AddTool(sake.NewTool("echo", func(*sake.Context) (string, error) { return "echo from old", nil })); err != nil {
			t.Fatal(err)
		}
		var current atomic.Pointer[plug.Handler]
		current.Store(plug.New(srv))
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
		t.Cleanup(func() { ts.Close(); current.Load().Close() })
		g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"old": {"url": %q}}}`, ts.URL+"/mcp"),
			gateway.ClientOptions(client.ProtocolVersion("2025-11-25")), gateway.HealthCheck(time.Hour))
		c := saketest.Connect(t, g.Server(), opts...)
		if res, err := c.CallTool("old_echo", nil); err != nil || res.Text() != "echo from old" {
			t.Fatalf("old_echo = %v, %v", res, err)
		}
		// The remote restarts: every session it knew is gone.
		old := current.Swap(plug.New(srv))
		t.Cleanup(old.Close)
		if res, err := c.CallTool("old_echo", nil); err != nil || res.Text() != "echo from old" {
			t.Fatalf("old_echo after the remote forgot the session = %v, %v", res, err)
		}
		if s := g.Status()[0]; !s.Connected || s.Restarts != 0 {
			t.Errorf("status = %+v; want the same mount, renewed in place", s)
		}
	})
}
