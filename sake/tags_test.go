package sake_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func TestDisableAndEnableByTagAndName(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop)
		c := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"))
		l := saketest.Listen(t, srv)

		srv.Disable(sake.Components{Tags: []string{"admin"}})
		saketest.AssertListChanged(t, l, sake.ListTools)
		saketest.AssertListChanged(t, l, sake.ListResources)
		if names := shopTools(t, c); !slices.Equal(names, []string{"ping"}) {
			t.Fatalf("tools with admin disabled = %v", names)
		}
		_, err := c.CallTool("refund", map[string]any{"order": "A1", "tenant": "t"})
		assertUnknownTool(t, err, "refund")
		rs, err := c.ListResources()
		if err != nil || len(rs) != 0 {
			t.Fatalf("resources with admin disabled = %+v, %v", rs, err)
		}
		wantCode := sake.CodeInvalidParams
		if c.Session().Era == sake.EraLegacy {
			wantCode = sake.CodeResourceNotFound
		}
		var e *sake.Error
		if _, err := c.ReadResource("shop://policy"); !errors.As(err, &e) || e.Code != wantCode {
			t.Errorf("read of a disabled resource = %v", err)
		}
		if shop.ran.Load() != 0 {
			t.Error("a disabled tool ran")
		}
		// The prompt carries no admin tag: it stays.
		if ps, err := c.ListPrompts(); err != nil || len(ps) != 1 {
			t.Errorf("prompts = %+v, %v", ps, err)
		}

		// Enabling by name wins over the earlier tag rule, for that one.
		srv.Enable(sake.Components{Tools: []string{"refund"}})
		saketest.AssertListChanged(t, l, sake.ListTools)
		if names := shopTools(t, c); !slices.Equal(names, []string{"ping", "refund"}) {
			t.Fatalf("tools after enabling refund = %v", names)
		}
		if rs, _ := c.ListResources(); len(rs) != 0 {
			t.Error("the resource came back with the tool")
		}
		// A later tag rule wins over the name rule.
		srv.Disable(sake.Components{Tags: []string{"admin"}})
		if names := shopTools(t, c); !slices.Equal(names, []string{"ping"}) {
			t.Fatalf("tools after disabling admin again = %v", names)
		}
		srv.Enable(sake.Components{Tags: []string{"admin"}})
		if names := shopTools(t, c); !slices.Equal(names, []string{"ping", "refund"}) {
			t.Fatalf("tools after enabling admin = %v", names)
		}
		if rs, _ := c.ListResources(); len(rs) != 1 {
			t.Error("the resource did not come back")
		}

		// Disabling by name; prompts too.
		srv.Disable(sake.Components{Prompts: []string{"greet"}, Tools: []string{"ping"}})
		saketest.AssertListChanged(t, l, sake.ListPrompts)
		if _, err := c.GetPrompt("greet", map[string]string{"name": "x"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("disabled prompt = %v", err)
		}
		_, err = c.CallTool("ping", nil)
		assertUnknownTool(t, err, "ping")
		if shop.ran.Load() != 0 {
			t.Error("a disabled tool ran")
		}
	})
}

func TestDisableAppliesToLaterComponentsAndNamesAfterTransform(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	srv.Disable(sake.Components{Tags: []string{"beta"}, Tools: []string{"renamed"}})
	if err := srv.Transform(sake.Transform{Tool: "plain", Name: "renamed"}, sake.Transform{Tool: "other", Tags: []string{"beta"}}); err != nil {
		t.Fatal(err)
	}
	echo := func(*sake.Context) (string, error) { return "ok", nil }
	if err := srv.AddTool(
		sake.NewTool("plain", echo),
		sake.NewTool("other", echo),
		sake.NewTool("tagged", echo).Tags("beta"),
		sake.NewTool("kept", echo),
	); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	if names := shopTools(t, c); !slices.Equal(names, []string{"kept"}) {
		t.Fatalf("tools = %v, want kept only", names)
	}
	// A change that leaves the lists as they are announces nothing.
	l := saketest.Listen(t, srv)
	srv.Disable(sake.Components{Tools: []string{"absent"}})
	saketest.RefuteListChanged(t, l, sake.ListTools)
}
