package sake_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// staffOnly is a list policy's predicate: components tagged "staff" are
// for callers whose subject ends in @shop.example.
func staffOnly(req *sake.Request, c sake.ComponentInfo) bool {
	if !slices.Contains(c.Tags, "staff") {
		return true
	}
	return req.Identity != nil && strings.HasSuffix(req.Identity.Subject, "@shop.example")
}

func TestListsShowEverythingByDefault(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, sake.MustNew(newShop()), era, saketest.Scopes())
		if names := shopTools(t, c); !slices.Equal(names, []string{"ping", "refund"}) {
			t.Fatalf("tools = %v", names)
		}
		if c.Session().Era == sake.EraModern {
			raw, err := c.Request("tools/list", nil)
			if err != nil || !strings.Contains(string(raw), `"cacheScope":"public"`) {
				t.Errorf("tools/list = %s, %v", raw, err)
			}
		}
	})
}

func TestPerCallerListsFilterByRequirement(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop, sake.PerCallerLists(nil))
		guest := saketest.Connect(t, srv, era, saketest.Scopes())
		admin := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"))
		if names := shopTools(t, guest); !slices.Equal(names, []string{"ping"}) {
			t.Fatalf("guest tools = %v", names)
		}
		if names := shopTools(t, admin); !slices.Equal(names, []string{"ping", "refund"}) {
			t.Fatalf("admin tools = %v", names)
		}
		// A tool left out by its requirement is refused as before: the
		// caller learns which scope to ask for.
		_, err := guest.CallTool("refund", map[string]any{"order": "A1", "tenant": "t"})
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) || !slices.Contains(se.Scopes, "shop:admin") {
			t.Fatalf("guest refund = %v", err)
		}
		if shop.ran.Load() != 0 {
			t.Error("the refused call ran")
		}
		if guest.Session().Era == sake.EraModern {
			raw, err := guest.Request("tools/list", nil)
			if err != nil || !strings.Contains(string(raw), `"cacheScope":"private"`) {
				t.Errorf("tools/list = %s, %v", raw, err)
			}
			for _, m := range []string{"prompts/list", "resources/list", "resources/templates/list"} {
				raw, err := guest.Request(m, nil)
				if err != nil || !strings.Contains(string(raw), `"cacheScope":"private"`) {
					t.Errorf("%s = %s, %v", m, raw, err)
				}
			}
			// server/discover is the same for everyone.
			if raw, err := guest.Request("server/discover", nil); err != nil || !strings.Contains(string(raw), `"cacheScope":"public"`) {
				t.Errorf("server/discover = %s, %v", raw, err)
			}
		}
	})
}

func TestPerCallerListsPredicate(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop, sake.PerCallerLists(staffOnly), sake.Logger(discardLogger()))
		if err := srv.Transform(
			sake.Transform{Tool: "ping", Tags: []string{"staff"}},
			sake.Transform{Prompt: "greet", Tags: []string{"staff"}},
			sake.Transform{Resource: "shop://policy", Tags: []string{"staff"}},
		); err != nil {
			t.Fatal(err)
		}
		staff := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"), saketest.Subject("ada@shop.example"))
		customer := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"), saketest.Subject("bob@mail.example"))
		if names := shopTools(t, staff); !slices.Equal(names, []string{"ping", "refund"}) {
			t.Fatalf("staff tools = %v", names)
		}
		if names := shopTools(t, customer); !slices.Equal(names, []string{"refund"}) {
			t.Fatalf("customer tools = %v", names)
		}
		if res, err := staff.CallTool("ping", nil); err != nil || res.Text() != "pong" {
			t.Fatalf("staff ping = %v, %v", res, err)
		}
		// What the predicate refuses is unknown to the caller, in lists
		// and in calls.
		_, err := customer.CallTool("ping", nil)
		assertUnknownTool(t, err, "ping")
		if n := shop.ran.Load(); n != 1 {
			t.Errorf("the tool ran %d times, want 1", n)
		}
		var e *sake.Error
		if _, err := customer.GetPrompt("greet", map[string]string{"name": "x"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("customer prompt = %v", err)
		}
		if ps, err := customer.ListPrompts(); err != nil || len(ps) != 0 {
			t.Errorf("customer prompts = %+v, %v", ps, err)
		}
		if rs, err := customer.ListResources(); err != nil || len(rs) != 0 {
			t.Errorf("customer resources = %+v, %v", rs, err)
		}
		if _, err := customer.ReadResource("shop://policy"); !errors.As(err, &e) {
			t.Errorf("customer read = %v", err)
		}
		if _, err := customer.Complete(protocol.PromptRef("greet"), "name", "", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("customer completion = %v", err)
		}
		if got, err := staff.ReadResource("shop://policy"); err != nil || got[0].Text != "30 days" {
			t.Errorf("staff read = %+v, %v", got, err)
		}
		if customer.Session().Era == sake.EraLegacy {
			if _, err := customer.Request("resources/subscribe", map[string]any{"uri": "shop://policy"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("customer subscribe = %v", err)
			}
			if _, err := staff.Request("resources/subscribe", map[string]any{"uri": "shop://policy"}); err != nil {
				t.Errorf("staff subscribe = %v", err)
			}
		}
		// A server-side cache is told not to serve the customer.
		req := &sake.Request{Method: "tools/call", Params: &sake.Params{Name: "ping"},
			Identity: &sake.Identity{Subject: "bob@mail.example", FromToken: true}}
		if _, ok := srv.CacheHint(req); ok {
			t.Error("CacheHint offers a refused tool to the cache")
		}
		req.Identity.Subject = "ada@shop.example"
		if _, ok := srv.CacheHint(req); !ok {
			t.Error("CacheHint refuses staff")
		}
	})
}

func TestPerCallerListsPredicatePanics(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop(), sake.Logger(discardLogger()),
		sake.PerCallerLists(func(_ *sake.Request, c sake.ComponentInfo) bool {
			if c.Name == "ping" {
				panic("policy bug")
			}
			return true
		}))
	c := saketest.Connect(t, srv, saketest.Scopes("shop:admin"))
	if names := shopTools(t, c); !slices.Equal(names, []string{"refund"}) {
		t.Fatalf("tools = %v: a panicking predicate must refuse", names)
	}
	_, err := c.CallTool("ping", nil)
	assertUnknownTool(t, err, "ping")
}
