package sake_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type vaultArgs struct {
	Q      string `json:"q"`
	Secret string `json:"secret,omitempty"`
	Ratio  string `json:"Ratio,omitempty"`
}

// openVault is a tool whose schema, given verbatim, lets unknown
// properties through, as a proxied tool's may.
func openVault() *sake.ToolDef {
	return sake.NewTool("vault", func(_ *sake.Context, a vaultArgs) (string, error) {
		return "q=" + a.Q + " secret=" + a.Secret, nil
	}).InputSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"secret":{"type":"string"},"ratio":{"type":"string"}},"required":["q"]}`))
}

// A hidden argument cannot be set under another case of its name: the
// tool's decoding would take Secret for secret.
func TestHiddenArgumentIsRefusedInAnyCase(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := sake.MustNew(nil)
		if err := srv.AddTool(openVault()); err != nil {
			t.Fatal(err)
		}
		if err := srv.Transform(sake.Transform{Tool: "vault", Args: map[string]sake.ArgTransform{"secret": {Hide: true}}}); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, opts...)
		for _, name := range []string{"secret", "Secret", "SECRET", "ſecret"} {
			res, err := c.CallTool("vault", map[string]any{"q": "x", name: "mine"})
			if !toolErr(res, err) || !strings.Contains(res.Text(), name+": is not allowed (unknown property)") {
				t.Errorf("hidden argument sent as %q = %v, %v; want it refused", name, res, err)
			}
		}
		// A name the schema declares is the caller's, whatever another
		// name's case.
		if res, err := c.CallTool("vault", map[string]any{"q": "x", "ratio": "1"}); err != nil || res.IsError || res.Text() != "q=x secret=" {
			t.Errorf("vault = %v, %v", res, err)
		}
	})
}

// A transform's Value and Default must fit the argument's schema: one
// that does not is refused when the transform is made, whichever comes
// first, the tool or its transform, and nothing changes.
func TestTransformValuesAreCheckedAgainstTheSchema(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop())
	c := saketest.Connect(t, srv)
	before := shopTools(t, c)
	for name, tr := range map[string]sake.ArgTransform{
		"value":   {Value: "ten"},
		"default": {Default: "ten"},
	} {
		err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{"amount": tr}})
		if err == nil || !strings.Contains(err.Error(), `argument amount: its`) || !strings.Contains(err.Error(), `"ten" does not fit the argument's schema`) {
			t.Errorf("%s of the wrong type: err = %v", name, err)
		}
	}
	if err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{"amount": {Value: 10}, "note": {Default: "none"}}}); err != nil {
		t.Fatalf("values that fit: %v", err)
	}
	if err := srv.Transform(sake.Transform{Tool: "refund"}); err != nil {
		t.Fatal(err)
	}
	if after := shopTools(t, c); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("tools = %v, want %v", after, before)
	}

	// The transform comes first: AddTool reports the misfit and adds
	// nothing, instead of the tool being left out at the next list.
	later := sake.MustNew(nil, sake.Logger(discardLogger()))
	if err := later.Transform(sake.Transform{Tool: "count", Args: map[string]sake.ArgTransform{"n": {Value: "ten"}}}); err != nil {
		t.Fatal(err)
	}
	count := sake.NewTool("count", func(_ *sake.Context, a struct {
		N int `json:"n"`
	}) (int, error) {
		return a.N, nil
	})
	err := later.AddTool(count)
	if err == nil || !strings.Contains(err.Error(), "tool count does not fit the transform installed for it") || !strings.Contains(err.Error(), `"ten" does not fit`) {
		t.Fatalf("AddTool of a tool its transform does not fit: err = %v", err)
	}
	lc := saketest.Connect(t, later)
	if names := shopTools(t, lc); len(names) != 0 {
		t.Fatalf("tools after a refused AddTool = %v", names)
	}
	if err := later.Transform(sake.Transform{Tool: "count", Args: map[string]sake.ArgTransform{"n": {Value: 10}}}); err != nil {
		t.Fatal(err)
	}
	if err := later.AddTool(count); err != nil {
		t.Fatal(err)
	}
	if res, err := lc.CallTool("count", nil); err != nil || res.Text() != "10" {
		t.Fatalf("count = %v, %v", res, err)
	}
}
