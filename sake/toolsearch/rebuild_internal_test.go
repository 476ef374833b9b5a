package toolsearch

import (
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestIndexBuiltOncePerToolChange checks the index is built at the first
// search, kept while the tools stay the same (whatever else changes), and
// built again when they change.
func TestIndexBuiltOncePerToolChange(t *testing.T) {
	t.Parallel()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(nil, sake.Use(s.Middleware()))
	tool := func(name string) *sake.ToolDef {
		return sake.NewTool(name, func(*sake.Context, struct{}) (string, error) { return name, nil }).Description("Does " + name + ".")
	}
	if err := srv.AddTool(tool("alpha")); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	search := func() {
		t.Helper()
		if _, err := c.CallTool("search_tools", map[string]any{"query": "does"}); err != nil {
			t.Fatal(err)
		}
	}
	search()
	search()
	if n := s.builds.Load(); n != 1 {
		t.Fatalf("built %d times for one catalog", n)
	}
	if err := srv.AddResource(sake.NewResource("notes://a", func(*sake.Context) (string, error) { return "a", nil })); err != nil {
		t.Fatal(err)
	}
	search()
	if n := s.builds.Load(); n != 1 {
		t.Fatalf("a new resource rebuilt the tool index (%d builds)", n)
	}
	if err := srv.AddTool(tool("beta")); err != nil {
		t.Fatal(err)
	}
	search()
	search()
	if n := s.builds.Load(); n != 2 {
		t.Fatalf("built %d times after one change of the tools, want 2", n)
	}
}
