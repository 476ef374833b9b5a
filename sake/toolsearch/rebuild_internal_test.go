package toolsearch

import (
	"fmt"
	"strings"
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

// TestSearchWhileToolsChange searches from several callers while tools
// are added: every search answers, and the last finds every tool.
func TestSearchWhileToolsChange(t *testing.T) {
	t.Parallel()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(nil, sake.Use(s.Middleware()))
	const n = 40
	done := make(chan error, 4)
	for range 4 {
		c := saketest.Connect(t, srv)
		go func() {
			for range n {
				if _, err := c.CallTool("search_tools", map[string]any{"query": "widget", "limit": MaxResults}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := range n {
		name := fmt.Sprintf("widget_%d", i)
		if err := srv.AddTool(sake.NewTool(name, func(*sake.Context, struct{}) (string, error) { return "", nil }).Description("Makes a widget.")); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	c := saketest.Connect(t, srv)
	res, err := c.CallTool("search_tools", map[string]any{"query": "widget", "limit": MaxResults})
	if err != nil || strings.Count(res.Text(), `"name":"widget_`) != n {
		t.Fatalf("after the changes: %v, %v", res, err)
	}
}
