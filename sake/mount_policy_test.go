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

// staffChild is a server whose list policy keeps its "staff" components
// from callers outside the staff, and whose "vip" tool needs a scope.
func staffChild(t *testing.T) *sake.Server {
	t.Helper()
	child := sake.MustNew(nil, sake.PerCallerLists(staffOnly))
	ran := func(name string) func(*sake.Context) (string, error) {
		return func(*sake.Context) (string, error) { return name + " ran", nil }
	}
	if err := child.AddTool(
		sake.NewTool("audit", ran("audit")).Tags("staff"),
		sake.NewTool("ping", ran("ping")),
		sake.NewTool("vip", ran("vip")).Scopes("vip"),
	); err != nil {
		t.Fatal(err)
	}
	if err := child.AddPrompt(sake.NewPrompt("memo", func(*sake.Context) (string, error) { return "memo", nil }).Tags("staff")); err != nil {
		t.Fatal(err)
	}
	if err := child.AddResource(
		sake.NewResource("ledger://all", func(*sake.Context) (string, error) { return "ledger", nil }).Tags("staff"),
		sake.NewResourceTemplate("ledger://{id}", func(_ *sake.Context, v map[string]string) (string, error) { return v["id"], nil }).Tags("staff"),
	); err != nil {
		t.Fatal(err)
	}
	return child
}

func names[T any](t *testing.T, list []T, err error, name func(T) string) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range list {
		out = append(out, name(x))
	}
	return out
}

// A mounted child's list policy keeps holding for its components in the
// parent: a caller the child's predicate refuses neither sees them nor
// uses them through the parent, and one who lacks a component's scope
// does not see it but is told which scope to get when calling it.
func TestMountedChildKeepsItsListPolicy(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		parent := sake.MustNew(nil)
		if err := parent.Mount("kid", staffChild(t)); err != nil {
			t.Fatal(err)
		}
		// One level further: the child's policy holds through two mounts.
		top := sake.MustNew(nil)
		if err := top.Mount("", parent); err != nil {
			t.Fatal(err)
		}
		for _, srv := range []*sake.Server{parent, top} {
			guest := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("guest@else.example"))...)
			staff := saketest.Connect(t, srv, append(opts, saketest.Scopes("vip"), saketest.Subject("ann@shop.example"))...)

			tools, err := guest.ListTools()
			if got := names(t, tools, err, func(x protocol.ToolInfo) string { return x.Name }); !slices.Equal(got, []string{"kid_ping"}) {
				t.Errorf("guest's tools = %v, want kid_ping only", got)
			}
			tools, err = staff.ListTools()
			if got := names(t, tools, err, func(x protocol.ToolInfo) string { return x.Name }); !slices.Equal(got, []string{"kid_audit", "kid_ping", "kid_vip"}) {
				t.Errorf("staff's tools = %v", got)
			}
			prompts, err := guest.ListPrompts()
			if got := names(t, prompts, err, func(x protocol.PromptInfo) string { return x.Name }); len(got) != 0 {
				t.Errorf("guest's prompts = %v", got)
			}
			resources, err := guest.ListResources()
			if got := names(t, resources, err, func(x protocol.ResourceInfo) string { return x.URI }); len(got) != 0 {
				t.Errorf("guest's resources = %v", got)
			}
			templates, err := guest.ListResourceTemplates()
			if got := names(t, templates, err, func(x protocol.ResourceTemplateInfo) string { return x.URITemplate }); len(got) != 0 {
				t.Errorf("guest's templates = %v", got)
			}
			if guest.Session().Era == sake.EraModern {
				if raw, err := guest.Request("tools/list", nil); err != nil || !strings.Contains(string(raw), `"cacheScope":"private"`) {
					t.Errorf("tools/list = %s, %v; want a private list", raw, err)
				}
			}

			_, err = guest.CallTool("kid_audit", nil)
			assertUnknownTool(t, err, "kid_audit")
			var e *sake.Error
			if _, err := guest.GetPrompt("kid_memo", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("guest's kid_memo = %v, want unknown", err)
			}
			for _, uri := range []string{"kid+ledger://all", "kid+ledger://7"} {
				if _, err := guest.ReadResource(uri); !errors.As(err, &e) || e.Message != "Resource not found" {
					t.Errorf("guest's read of %s = %v, want not found", uri, err)
				}
			}
			if _, err := guest.Complete(protocol.ResourceRef("kid+ledger://{id}"), "id", "", nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("guest's completion of the template = %v, want unknown", err)
			}
			if guest.Session().Era == sake.EraLegacy {
				_, err := guest.Request("resources/subscribe", map[string]any{"uri": "kid+ledger://all"})
				if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
					t.Errorf("guest's subscription to kid+ledger://all = %v, want -32602", err)
				}
				if _, err := staff.Request("resources/subscribe", map[string]any{"uri": "kid+ledger://all"}); err != nil {
					t.Errorf("staff's subscription to kid+ledger://all = %v", err)
				}
			}
			var se *protocol.InsufficientScopeError
			if _, err := guest.CallTool("kid_vip", nil); !errors.As(err, &se) {
				t.Errorf("guest's kid_vip = %v, want insufficient scope", err)
			}

			if res, err := staff.CallTool("kid_audit", nil); err != nil || res.Text() != "audit ran" {
				t.Errorf("staff's kid_audit = %v, %v", res, err)
			}
			if res, err := staff.GetPrompt("kid_memo", nil); err != nil || res.Text() != "memo" {
				t.Errorf("staff's kid_memo = %v, %v", res, err)
			}
			if got, err := staff.ReadResource("kid+ledger://7"); err != nil || got[0].Text != "7" {
				t.Errorf("staff's read = %v, %v", got, err)
			}
		}
	})
}
