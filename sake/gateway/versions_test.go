package gateway_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// versionedRemote serves the tool quote at version, and ping without one.
func versionedRemote(t *testing.T, version string) string {
	t.Helper()
	srv := sake.MustNew(nil, sake.Name("quotes", "1.0.0"))
	if err := srv.AddTool(
		sake.NewTool("quote", func(*sake.Context) (string, error) { return "quote " + version, nil }).Version(version),
		sake.NewTool("ping", func(*sake.Context) (string, error) { return "pong", nil }),
	); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(srv)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close() })
	return ts.URL + "/mcp"
}

func TestGatewayPinsAnEntryToAVersionRange(t *testing.T) {
	t.Parallel()
	v1, v2 := versionedRemote(t, "1.4"), versionedRemote(t, "2.0")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"old": {"url": %q, "versions": ">=1 <2"},
		"new": {"url": %q, "versions": ">=1 <2"},
		"free": {"url": %q}
	}}`, v1, v2, v2), gateway.HealthCheck(time.Hour))
	for _, s := range g.Status() {
		if !s.Connected {
			t.Fatalf("%s is not connected: %v", s.Key, s.Err)
		}
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		// new's quote moved to 2.0, outside its pin: left out; its
		// unversioned ping passes.
		if got := names(t, c); !slices.Equal(got, []string{"free_ping", "free_quote", "new_ping", "old_ping", "old_quote"}) {
			t.Fatalf("tools = %v", got)
		}
		if res, err := c.WithVersion("1.4").CallTool("old_quote", nil); err != nil || res.Text() != "quote 1.4" {
			t.Errorf("old_quote 1.4 = %v, %v", res, err)
		}
		_, err := c.CallTool("new_quote", nil)
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("new_quote, pinned out = %v, want -32602", err)
		}
	})
}
