package sake_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// Transforms, tags and per-caller lists apply to mounted components as to
// the parent's own: a mounted tool can be renamed and its argument fixed,
// disabled by name, and left out of the list of a caller who may not call
// it.
func TestReshapingAppliesToMountedComponents(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		child := sake.MustNew(&billing{company: "acme"})
		if err := child.AddTool(sake.NewTool("audit", func(*sake.Context) (string, error) { return "audited", nil }).Scopes("admin")); err != nil {
			t.Fatal(err)
		}
		parent := sake.MustNew(nil, sake.PerCallerLists(nil))
		mustMount(t, parent, "billing", child)
		err := parent.Transform(sake.Transform{Tool: "billing_refund", Name: "refund_ten",
			Args: map[string]sake.ArgTransform{"amount": {Value: 10}}})
		if err != nil {
			t.Fatal(err)
		}

		c := saketest.Connect(t, parent, append(opts, saketest.Scopes("reader"))...)
		names := mountedToolNames(t, c)
		if !slices.Contains(names, "refund_ten") || slices.Contains(names, "billing_refund") || slices.Contains(names, "billing_audit") {
			t.Fatalf("tools = %v, want refund_ten and no billing_refund or billing_audit (needs admin)", names)
		}
		if res, err := c.CallTool("refund_ten", nil); err != nil || res.Text() != "acme refunded 10" {
			t.Fatalf("refund_ten = %v, %v", res, err)
		}
		var te *sake.ToolError
		if _, err := c.CallTool("refund_ten", map[string]any{"amount": 99}); !errors.As(err, &te) {
			t.Errorf("a hidden argument sent through the mount = %v, want a tool error", err)
		}
		var scope *protocol.InsufficientScopeError
		if _, err := c.CallTool("billing_audit", nil); !errors.As(err, &scope) {
			t.Errorf("a filtered mounted tool called anyway = %v, want insufficient scope", err)
		}

		admin := saketest.Connect(t, parent, append(opts, saketest.Scopes("admin"))...)
		if !slices.Contains(mountedToolNames(t, admin), "billing_audit") {
			t.Errorf("an admin's list lacks billing_audit")
		}
		parent.Disable(sake.Components{Tools: []string{"refund_ten"}})
		if slices.Contains(mountedToolNames(t, admin), "refund_ten") {
			t.Errorf("a disabled mounted tool is still listed")
		}
		var rpc *sake.Error
		if _, err := admin.CallTool("refund_ten", nil); !errors.As(err, &rpc) || rpc.Code != protocol.CodeInvalidParams {
			t.Errorf("a disabled mounted tool called = %v, want -32602", err)
		}
	})
}
