package sake_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// A child's own transform of a method tool travels with the tool when the
// child is mounted: the tool runs on the child's value, reshaped.
func TestMountedToolKeepsTheChildsTransform(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		child := sake.MustNew(newShop())
		err := child.Transform(sake.Transform{Tool: "refund", Name: "give_back", Args: map[string]sake.ArgTransform{
			"tenant": {Value: "t1"},
			"order":  {Name: "order_id"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		parent := sake.MustNew(nil)
		if err := parent.Mount("kid", child); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, parent, opts...)
		res, err := c.CallTool("kid_give_back", map[string]any{"order_id": "A1", "amount": 5})
		if err != nil || res.IsError || res.Text() != "refund A1 5 for t1 ()" {
			t.Fatalf("kid_give_back = %v, %v", res, err)
		}
		res, err = c.CallTool("kid_give_back", map[string]any{"order_id": "A1", "tenant": "t2"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "tenant: is not allowed") {
			t.Fatalf("kid_give_back with the hidden tenant = %v, %v", res, err)
		}
		var e *sake.Error
		if _, err := c.CallTool("kid_refund", map[string]any{"order": "A1"}); !errors.As(err, &e) {
			t.Fatalf("kid_refund = %v, want unknown", err)
		}
		names := shopTools(t, c)
		if !slices.Contains(names, "kid_give_back") || slices.Contains(names, "kid_refund") {
			t.Fatalf("tools = %v", names)
		}
	})
}

// A transform the parent installed for a mounted tool before the mount,
// that does not fit it, is Mount's error, and nothing is mounted.
func TestMountReportsAToolItsTransformDoesNotFit(t *testing.T) {
	t.Parallel()
	parent := sake.MustNew(nil)
	if err := parent.Transform(sake.Transform{Tool: "kid_refund", Args: map[string]sake.ArgTransform{"amount": {Value: "ten"}}}); err != nil {
		t.Fatal(err)
	}
	err := parent.Mount("kid", sake.MustNew(newShop()))
	if err == nil || !strings.Contains(err.Error(), "tool kid_refund does not fit the transform installed for it") || !strings.Contains(err.Error(), `"ten" does not fit`) {
		t.Fatalf("Mount = %v", err)
	}
	if names := shopTools(t, saketest.Connect(t, parent)); len(names) != 0 {
		t.Fatalf("tools after a refused mount = %v", names)
	}
}
