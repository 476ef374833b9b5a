package toolsearch_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/toolsearch"
)

type greetArgs struct {
	Name string `json:"name"`
}

// library is a server of resources and prompts behind both middlewares.
func library(t *testing.T, extra ...sake.Option) *sake.Server {
	t.Helper()
	opts := append([]sake.Option{sake.Use(toolsearch.ResourcesAsTools(), toolsearch.PromptsAsTools())}, extra...)
	srv := sake.MustNew(nil, opts...)
	text := func(s string) func(*sake.Context) (string, error) {
		return func(*sake.Context) (string, error) { return s, nil }
	}
	err := srv.AddResource(
		sake.NewResource("docs://readme", text("read me first")).Description("The readme."),
		sake.NewResource("docs://payroll", text("salaries")).Scopes("hr:read"),
		sake.NewResource("docs://staff-handbook", text("handbook")).Tags("staff"),
		sake.NewResource("docs://old", text("old")).Tags("retired"),
		sake.NewResourceTemplate("notes://{id}", func(_ *sake.Context, v map[string]string) (string, error) { return "note " + v["id"], nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	err = srv.AddPrompt(sake.NewPrompt("greet", func(_ *sake.Context, a greetArgs) (string, error) { return "Hello, " + a.Name, nil }).
		Description("Greets someone."))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AddTool(sake.NewTool("ping", func(*sake.Context, struct{}) (string, error) { return "pong", nil })); err != nil {
		t.Fatal(err)
	}
	srv.Disable(sake.Components{Tags: []string{"retired"}})
	return srv
}

func structured(t *testing.T, res *sake.ToolResult, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(res.Text()), v); err != nil {
		t.Fatalf("%s: %v", res.Text(), err)
	}
}

func TestResourcesAsTools(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		srv := library(t, sake.PerCallerLists(staffOnly))
		guest := saketest.Connect(t, srv, append(opts, saketest.Scopes())...)
		clerk := saketest.Connect(t, srv, append(opts, saketest.Scopes("hr:read"), saketest.Subject("ann@shop.example"))...)

		// The outer middleware adds its tools after the inner one's.
		want := []string{"ping", "list_prompts", "get_prompt", "list_resources", "list_resource_templates", "read_resource"}
		if got := listed(t, guest); !slices.Equal(got, want) {
			t.Fatalf("tools/list = %v, want %v", got, want)
		}

		uris := func(c *saketest.Client) []string {
			res, err := c.CallTool("list_resources", nil)
			if err != nil {
				t.Fatal(err)
			}
			var page struct {
				Resources []struct{ URI string } `json:"resources"`
			}
			structured(t, res, &page)
			var out []string
			for _, r := range page.Resources {
				out = append(out, r.URI)
			}
			return out
		}
		// The caller sees what resources/list shows it.
		if got := uris(guest); !slices.Equal(got, []string{"docs://readme"}) {
			t.Errorf("guest lists %v", got)
		}
		if got := uris(clerk); !slices.Equal(got, []string{"docs://payroll", "docs://readme", "docs://staff-handbook"}) {
			t.Errorf("clerk lists %v", got)
		}
		res, err := guest.CallTool("list_resource_templates", nil)
		if err != nil || !strings.Contains(res.Text(), `"uriTemplate":"notes://{id}"`) {
			t.Errorf("list_resource_templates = %v, %v", res, err)
		}

		read := func(c *saketest.Client, uri string) (*sake.ToolResult, error) {
			return c.CallTool("read_resource", map[string]any{"uri": uri})
		}
		if res, err := read(guest, "notes://7"); err != nil || res.Text() != "note 7" {
			t.Errorf("read notes://7 = %v, %v", res, err)
		}
		if res, err := read(clerk, "docs://payroll"); err != nil || res.Text() != "salaries" || res.StructuredContent == nil {
			t.Errorf("clerk reads payroll = %v, %v", res, err)
		}
		// A missing scope is named, as resources/read names it.
		_, err = read(guest, "docs://payroll")
		var se *protocol.InsufficientScopeError
		if !errors.As(err, &se) || !slices.Contains(se.Scopes, "hr:read") {
			t.Errorf("guest reads payroll = %v, want insufficient scope", err)
		}
		// Disabled, refused by the predicate, unknown: not found, with the
		// code resources/read answers in this era.
		for _, uri := range []string{"docs://old", "docs://staff-handbook", "docs://nope"} {
			_, direct := guest.ReadResource(uri)
			_, err := read(guest, uri)
			var d, e *sake.Error
			if !errors.As(direct, &d) || !errors.As(err, &e) || d.Code != e.Code || d.Message != e.Message {
				t.Errorf("read %s: via the tool %v, directly %v", uri, err, direct)
			}
		}
		for _, bad := range []map[string]any{{}, {"uri": ""}, {"uri": "docs://readme", "x": 1}} {
			_, err := guest.CallTool("read_resource", bad)
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(te.Error(), "Invalid arguments for tool read_resource") {
				t.Errorf("read_resource %v = %v", bad, err)
			}
		}
		// A cursor the server did not give is refused as resources/list
		// refuses it.
		_, err = guest.CallTool("list_resources", map[string]any{"cursor": "forged"})
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("list_resources with a forged cursor = %v", err)
		}
	})
}

func TestPromptsAsTools(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, library(t), opts...)
		res, err := c.CallTool("list_prompts", nil)
		if err != nil || !strings.Contains(res.Text(), `"name":"greet"`) {
			t.Fatalf("list_prompts = %v, %v", res, err)
		}
		res, err = c.CallTool("get_prompt", map[string]any{"name": "greet", "arguments": map[string]string{"name": "Ada"}})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Messages []struct {
				Role    string `json:"role"`
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		structured(t, res, &got)
		if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.Text != "Hello, Ada" {
			t.Errorf("get_prompt = %s", res.Text())
		}
		_, direct := c.GetPrompt("nope", nil)
		_, err = c.CallTool("get_prompt", map[string]any{"name": "nope"})
		var d, e *sake.Error
		if !errors.As(direct, &d) || !errors.As(err, &e) || d.Code != e.Code || d.Message != e.Message {
			t.Errorf("unknown prompt: via the tool %v, directly %v", err, direct)
		}
		for _, bad := range []map[string]any{{}, {"name": "greet", "arguments": map[string]any{"name": 3}}} {
			_, err := c.CallTool("get_prompt", bad)
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(te.Error(), "Invalid arguments for tool get_prompt") {
				t.Errorf("get_prompt %v = %v", bad, err)
			}
		}
	})
}

// TestSearchAndResourcesAsToolsCompose checks the search keeps the tools
// ResourcesAsTools adds listed, in either order.
func TestSearchAndResourcesAsToolsCompose(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		for _, searchFirst := range []bool{true, false} {
			s, err := toolsearch.New(toolsearch.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mw := []sake.Middleware{s.Middleware(), toolsearch.ResourcesAsTools()}
			if !searchFirst {
				slices.Reverse(mw)
			}
			srv := sake.MustNew(nil, sake.Use(mw...))
			if err := srv.AddTool(sake.NewTool("ping", func(*sake.Context, struct{}) (string, error) { return "pong", nil })); err != nil {
				t.Fatal(err)
			}
			if err := srv.AddResource(sake.NewResource("docs://readme", func(*sake.Context) (string, error) { return "hi", nil })); err != nil {
				t.Fatal(err)
			}
			c := saketest.Connect(t, srv, opts...)
			got := listed(t, c)
			slices.Sort(got)
			if want := []string{"call_tool", "list_resource_templates", "list_resources", "read_resource", "search_tools"}; !slices.Equal(got, want) {
				t.Errorf("search first %v: tools/list = %v, want %v", searchFirst, got, want)
			}
			if res, err := c.CallTool("read_resource", map[string]any{"uri": "docs://readme"}); err != nil || res.Text() != "hi" {
				t.Errorf("read_resource = %v, %v", res, err)
			}
		}
	})
}
