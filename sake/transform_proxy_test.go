package sake_test

import (
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestTransformOfARemoteTool reshapes, tags and disables the tools of a
// proxy, which are registry entries like any other.
func TestTransformOfARemoteTool(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		remote, err := client.Connect(t.Context(), memory.Transport(sake.MustNew(newShop())))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = remote.Close() })
		srv, err := proxy.New(t.Context(), remote, proxy.Prefix("up_"))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Transform(sake.Transform{Tool: "up_refund", Name: "refund", Tags: []string{"money"},
			Args: map[string]sake.ArgTransform{"tenant": {Value: "acme"}, "note": {Value: "proxied"}}}); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era)
		if names := shopTools(t, c); !slices.Equal(names, []string{"refund", "up_ping"}) {
			t.Fatalf("tools = %v", names)
		}
		res, err := c.CallTool("refund", map[string]any{"order": "R1", "amount": 3})
		if err != nil || res.Text() != "refund R1 3 for acme (proxied)" {
			t.Fatalf("refund = %v, %v", res, err)
		}
		res, err = c.CallTool("refund", map[string]any{"order": "R1", "tenant": "other"})
		if !toolErr(res, err) {
			t.Fatalf("hidden argument through the proxy = %v, %v", res, err)
		}
		srv.Disable(sake.Components{Tags: []string{"money"}})
		_, err = c.CallTool("refund", map[string]any{"order": "R1"})
		assertUnknownTool(t, err, "refund")
	})
}
