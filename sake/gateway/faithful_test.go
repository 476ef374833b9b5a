package gateway_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// faithfulRemote is an HTTP server with what a gateway must pass
// through as it is: _meta, an MCP Apps view, links to its resources, a
// template with completions.
func faithfulRemote(t *testing.T) string {
	t.Helper()
	srv := sake.MustNew(nil, sake.Name("apps", "1.0.0"))
	if err := srv.AddView(sake.NewView("ui://apps/board", "<!DOCTYPE html><html><body>board</body></html>")); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddTool(
		sake.NewTool("board", func(*sake.Context) (string, error) { return "shown", nil }).
			View("ui://apps/board").Meta("vendor.example/flag", "kept"),
		sake.NewTool("link", func(*sake.Context) (*sake.ToolResult, error) {
			return &sake.ToolResult{Content: []sake.Content{
				&sake.ResourceLink{URI: "notes://first", Name: "first"},
				&sake.EmbeddedResource{Resource: sake.ResourceContents{URI: "notes://second", Text: "two"}},
				&sake.ResourceLink{URI: "ui://apps/board", Name: "board"},
			}}, nil
		}),
	); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddResource(
		sake.NewResource("notes://first", func(*sake.Context) (string, error) { return "one", nil }).Meta("vendor.example/r", "kept"),
		sake.NewResourceTemplate("notes://{id}", func(_ *sake.Context, vars map[string]string) (string, error) { return "note " + vars["id"], nil }).
			Complete("id", func(_ *sake.Context, r sake.CompleteRequest) (*sake.Completion, error) {
				var out []string
				for _, id := range []string{"first", "second", "fifth"} {
					if strings.HasPrefix(id, r.Value) {
						out = append(out, id)
					}
				}
				return &sake.Completion{Values: out}, nil
			}),
	); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(srv)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ts.Close(); ph.Close() })
	return ts.URL + "/mcp"
}

// TestGatewayKeepsMetaAndViews: a tool's _meta (its MCP Apps view among
// it) reaches the gateway's callers, and the view it names is read
// through the gateway.
func TestGatewayKeepsMetaAndViews(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"apps": {"url": %q}}}`, faithfulRemote(t)))
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(tools, func(ti protocol.ToolInfo) bool { return ti.Name == "apps_board" })
		if i < 0 {
			t.Fatalf("no apps_board in %v", tools)
		}
		meta := tools[i].Meta
		if meta["vendor.example/flag"] != "kept" {
			t.Errorf("apps_board's _meta = %v; want vendor.example/flag kept", meta)
		}
		ui, _ := meta["ui"].(map[string]any)
		view, _ := ui["resourceUri"].(string)
		if view != "ui://apps/board" {
			t.Fatalf("apps_board's _meta.ui = %v; want the view it names", meta["ui"])
		}
		contents, err := c.ReadResource(view)
		if err != nil || len(contents) != 1 || !strings.Contains(contents[0].Text, "board") {
			t.Fatalf("reading the view %s through the gateway = %v, %v", view, contents, err)
		}
		resources, err := c.ListResources()
		if err != nil {
			t.Fatal(err)
		}
		j := slices.IndexFunc(resources, func(r protocol.ResourceInfo) bool { return r.URI == "apps+notes://first" })
		if j < 0 || resources[j].Meta["vendor.example/r"] != "kept" {
			t.Errorf("resources = %+v; want apps+notes://first with its _meta", resources)
		}
	})
}

// TestGatewayRewritesTheURIsOfResults: the resource links and embedded
// resources of a tool result name the gateway's URIs, which can be read
// through it (a view keeps its ui:// URI, as the mount keeps it).
func TestGatewayRewritesTheURIsOfResults(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"apps": {"url": %q}}}`, faithfulRemote(t)))
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		res, err := c.CallTool("apps_link", nil)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, content := range res.Content {
			switch content := content.(type) {
			case *protocol.ResourceLink:
				uris = append(uris, content.URI)
			case *protocol.EmbeddedResource:
				uris = append(uris, content.Resource.URI)
			}
		}
		if want := []string{"apps+notes://first", "apps+notes://second", "ui://apps/board"}; !slices.Equal(uris, want) {
			t.Fatalf("the result's URIs = %v, want %v", uris, want)
		}
		for _, uri := range uris {
			if _, err := c.ReadResource(uri); err != nil {
				t.Errorf("reading %s through the gateway: %v", uri, err)
			}
		}
	})
}

// TestGatewayCompletesTemplateVariables: completion/complete of a
// namespaced resource template is the remote's.
func TestGatewayCompletesTemplateVariables(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"apps": {"url": %q}}}`, faithfulRemote(t)))
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		comp, err := c.Complete(protocol.ResourceRef("apps+notes://{id}"), "id", "f", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(comp.Values, []string{"first", "fifth"}) {
			t.Fatalf("completing id of apps+notes://{id} with %q = %v", "f", comp.Values)
		}
	})
}
