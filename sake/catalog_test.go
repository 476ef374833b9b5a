package sake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func TestToolCatalog(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(nil)
	tool := func(name string) *sake.ToolDef {
		return sake.NewTool(name, func(*sake.Context, struct{}) (string, error) { return name, nil }).Title("T " + name)
	}
	if err := srv.AddTool(tool("b"), tool("a")); err != nil {
		t.Fatal(err)
	}
	cat := srv.ToolCatalog()
	if cat.Len() != 2 || cat.Name(0) != "a" || cat.Name(1) != "b" {
		t.Fatalf("catalog = %d tools", cat.Len())
	}
	if cat.Lookup("b") != 1 || cat.Lookup("c") != -1 {
		t.Errorf("Lookup b = %d, c = %d", cat.Lookup("b"), cat.Lookup("c"))
	}
	var e struct{ Name, Title string }
	if err := json.Unmarshal(cat.Entry(nil, 0), &e); err != nil || e.Name != "a" || e.Title != "T a" {
		t.Errorf("Entry = %s, %v", cat.Entry(nil, 0), err)
	}
	// Another snapshot of the same tools is the same; a change is not.
	if err := srv.AddResource(sake.NewResource("x://y", func(*sake.Context) (string, error) { return "", nil })); err != nil {
		t.Fatal(err)
	}
	if !srv.ToolCatalog().Same(cat) {
		t.Error("a resource changed the tool catalog")
	}
	srv.RemoveTool("b")
	if srv.ToolCatalog().Same(cat) || srv.ToolCatalog().Len() != 1 {
		t.Error("removing a tool left the catalog the same")
	}
	var zero sake.ToolCatalog
	if zero.Len() != 0 || zero.Lookup("a") != -1 || zero.Same(cat) {
		t.Error("the zero catalog is not empty")
	}
	if _, err := sake.ResultJSON(nil, sake.TextResult("x")); err == nil {
		t.Error("ResultJSON without a request rendered")
	}
}

// TestToolsPage checks a page made by middleware is rendered as the
// server's own lists are, in both eras.
func TestToolsPage(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		page := func(next sake.Handler) sake.Handler {
			return func(ctx context.Context, req *sake.Request) (any, error) {
				if req.Method != "tools/list" {
					return next(ctx, req)
				}
				cat := req.Server().ToolCatalog()
				return sake.ToolsPage(req, []json.RawMessage{cat.Entry(req, 0)}, "more"), nil
			}
		}
		srv := sake.MustNew(nil, sake.Use(page), sake.PerCallerLists(nil))
		if err := srv.AddTool(sake.NewTool("a", func(*sake.Context, struct{}) (string, error) { return "", nil })); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, opts...)
		raw, err := c.Request("tools/list", nil)
		if err != nil || !strings.Contains(string(raw), `"tools":[{"name":"a"`) || !strings.Contains(string(raw), `"nextCursor":"more"`) {
			t.Fatalf("tools/list = %s, %v", raw, err)
		}
		if c.Session().Era == sake.EraModern && !strings.Contains(string(raw), `"cacheScope":"private"`) {
			t.Errorf("a per-caller page is not private: %s", raw)
		}
	})
}
