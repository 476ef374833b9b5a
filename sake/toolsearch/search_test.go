package toolsearch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/toolsearch"
)

type invoiceArgs struct {
	Customer string `json:"customer" jsonschema:"description=Who pays"`
	Amount   int    `json:"amount" jsonschema:"description=In cents"`
}

type cityArgs struct {
	City string `json:"city" jsonschema:"description=The town to look up"`
}

// shop is a server of a few tools, each guarded differently.
type shop struct {
	srv      *sake.Server
	invoices *atomic.Int32
}

// staffOnly lets only staff callers see and call tools tagged "staff".
func staffOnly(req *sake.Request, c sake.ComponentInfo) bool {
	if !slices.Contains(c.Tags, "staff") {
		return true
	}
	return req.Identity != nil && strings.HasSuffix(req.Identity.Subject, "@shop.example")
}

func newShop(t *testing.T, opts toolsearch.Options, serverOpts ...sake.Option) shop {
	t.Helper()
	s, err := toolsearch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(nil, append([]sake.Option{sake.Use(s.Middleware())}, serverOpts...)...)
	sh := shop{srv: srv, invoices: new(atomic.Int32)}
	err = srv.AddTool(
		sake.NewTool("send_invoice", func(_ *sake.Context, a invoiceArgs) (string, error) {
			sh.invoices.Add(1)
			return "invoice sent to " + a.Customer, nil
		}).Description("Email an invoice to a customer for what they bought.").Scopes("billing:write"),
		sake.NewTool("refund_order", func(*sake.Context, struct{}) (string, error) { return "refunded", nil }).
			Description("Give a customer their money back for an order.").Tags("staff"),
		sake.NewTool("weather", func(_ *sake.Context, a cityArgs) (string, error) { return "sunny in " + a.City, nil }).
			Title("Weather forecast").Description("Tells tomorrow's forecast."),
		sake.NewTool("audit_report", func(*sake.Context, struct{}) (string, error) { return "audit", nil }).
			Description("Builds the yearly audit report of every invoice.").Tags("retired"),
		sake.NewTool("refresh_invoice_view", func(*sake.Context, struct{}) (string, error) { return "ok", nil }).
			Description("Refreshes the invoice view of the app.").Visibility(sake.VisibleToApp),
		sake.NewTool("help", func(*sake.Context, struct{}) (string, error) { return "ask me", nil }).
			Description("Explains what this server can do."),
	)
	if err != nil {
		t.Fatal(err)
	}
	srv.Disable(sake.Components{Tags: []string{"retired"}})
	return sh
}

func listed(t *testing.T, c *saketest.Client) []string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

// found runs search_tools and returns the names of the tools found, best
// first, checking each carries its input schema.
func found(t *testing.T, c *saketest.Client, query string) []string {
	t.Helper()
	res, err := c.CallTool("search_tools", map[string]any{"query": query, "limit": 10})
	if err != nil {
		t.Fatalf("search_tools %q: %v", query, err)
	}
	var out struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &out); err != nil {
		t.Fatalf("search_tools %q: %v in %s", query, err, res.Text())
	}
	var names []string
	for _, tl := range out.Tools {
		if len(tl.InputSchema) == 0 {
			t.Errorf("search result %s has no inputSchema", tl.Name)
		}
		names = append(names, tl.Name)
	}
	return names
}

func TestListShowsTheSearchInPlaceOfTheCatalog(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		sh := newShop(t, toolsearch.Options{AlwaysList: []string{"help"}})
		c := saketest.Connect(t, sh.srv, opts...)
		if got := listed(t, c); !slices.Equal(got, []string{"help", "search_tools", "call_tool"}) {
			t.Fatalf("tools/list = %v", got)
		}
		// Tools the search does not cover stay listed.
		sh2 := newShop(t, toolsearch.Options{Covers: func(n string) bool { return n != "weather" }})
		c2 := saketest.Connect(t, sh2.srv, opts...)
		if got := listed(t, c2); !slices.Equal(got, []string{"weather", "search_tools", "call_tool"}) {
			t.Fatalf("tools/list = %v", got)
		}
		if c.Session().Era == sake.EraModern {
			raw, err := c.Request("tools/list", nil)
			if err != nil || !strings.Contains(string(raw), `"ttlMs":`) || !strings.Contains(string(raw), `"resultType":"complete"`) {
				t.Errorf("tools/list = %s, %v", raw, err)
			}
		}
		// A cursor the search did not give is refused.
		_, err := c.Request("tools/list", map[string]any{"cursor": "bogus"})
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("tools/list with a forged cursor = %v, want -32602", err)
		}
	})
}

func TestSearchFindsToolsByPurpose(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		sh := newShop(t, toolsearch.Options{})
		c := saketest.Connect(t, sh.srv, append(opts, saketest.Scopes("billing:write"))...)
		if got := found(t, c, "will it rain in my town"); len(got) == 0 || got[0] != "weather" {
			t.Errorf("rain in my town: %v, want weather first", got)
		}
		if got := found(t, c, "bill a customer by mail"); len(got) == 0 || got[0] != "send_invoice" {
			t.Errorf("bill a customer: %v, want send_invoice first", got)
		}
		if got := found(t, c, "xylophone"); len(got) != 0 {
			t.Errorf("a word no tool has found %v", got)
		}
		for _, bad := range []map[string]any{{}, {"query": " "}, {"query": "x", "limit": 0}, {"query": "x", "limit": 51}, {"query": "x", "extra": 1}, {"query": strings.Repeat("a ", 2000)}} {
			_, err := c.CallTool("search_tools", bad)
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(te.Error(), "Invalid arguments for tool search_tools") {
				t.Errorf("search_tools %v = %v, want an invalid-arguments result", bad, err)
			}
		}
	})
}

func TestSearchShowsOnlyWhatTheCallerMayList(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		sh := newShop(t, toolsearch.Options{}, sake.PerCallerLists(staffOnly))
		guest := saketest.Connect(t, sh.srv, append(opts, saketest.Scopes())...)
		clerk := saketest.Connect(t, sh.srv, append(opts, saketest.Scopes("billing:write"), saketest.Subject("ann@shop.example"))...)
		app := saketest.Connect(t, sh.srv, append(opts, saketest.Scopes("billing:write"), saketest.UI())...)
		queries := []string{"invoice for a customer", "money back for an order", "yearly audit report", "refresh the invoice view"}
		all := func(c *saketest.Client) []string {
			var names []string
			for _, q := range queries {
				for _, n := range found(t, c, q) {
					if !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
			slices.Sort(names)
			return names
		}
		// Scopes (under PerCallerLists), the predicate, Disable and
		// app-only visibility each hide a tool from the search.
		if got := all(guest); !slices.Equal(got, []string{}) && got != nil {
			t.Errorf("guest finds %v, want nothing", got)
		}
		if got := all(clerk); !slices.Equal(got, []string{"refund_order", "send_invoice"}) {
			t.Errorf("clerk finds %v", got)
		}
		if got := all(app); !slices.Equal(got, []string{"refresh_invoice_view", "send_invoice"}) {
			t.Errorf("app client finds %v", got)
		}
	})
}

func TestOnlyPermittedHidesWhatListsShow(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		// Without PerCallerLists, lists show every tool, so the search does.
		open := saketest.Connect(t, newShop(t, toolsearch.Options{}).srv, append(opts, saketest.Scopes())...)
		if got := found(t, open, "invoice for a customer"); !slices.Contains(got, "send_invoice") {
			t.Errorf("search without OnlyPermitted: %v", got)
		}
		strict := newShop(t, toolsearch.Options{OnlyPermitted: true}).srv
		guest := saketest.Connect(t, strict, append(opts, saketest.Scopes())...)
		if got := found(t, guest, "invoice for a customer"); slices.Contains(got, "send_invoice") {
			t.Errorf("OnlyPermitted search shows a tool the caller may not call: %v", got)
		}
		clerk := saketest.Connect(t, strict, append(opts, saketest.Scopes("billing:write"))...)
		if got := found(t, clerk, "invoice for a customer"); !slices.Contains(got, "send_invoice") {
			t.Errorf("OnlyPermitted search hides a permitted tool: %v", got)
		}
	})
}

func TestCallToolAppliesTheToolsRequirements(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		sh := newShop(t, toolsearch.Options{}, sake.PerCallerLists(staffOnly))
		guest := saketest.Connect(t, sh.srv, append(opts, saketest.Scopes())...)
		clerk := saketest.Connect(t, sh.srv, append(opts, saketest.Scopes("billing:write"))...)
		call := func(c *saketest.Client, name string, args any) (*sake.ToolResult, error) {
			return c.CallTool("call_tool", map[string]any{"name": name, "arguments": args})
		}
		invoice := map[string]any{"customer": "bob", "amount": 100}

		// The missing scope is named, as a direct call names it.
		_, direct := guest.CallTool("send_invoice", invoice)
		_, viaSearch := call(guest, "send_invoice", invoice)
		for _, err := range []error{direct, viaSearch} {
			var se *protocol.InsufficientScopeError
			if !errors.As(err, &se) || !slices.Contains(se.Scopes, "billing:write") {
				t.Fatalf("call without the scope = %v, want insufficient scope", err)
			}
		}
		if sh.invoices.Load() != 0 {
			t.Fatal("a refused call ran")
		}
		// Arguments are checked against the tool's schema.
		_, direct = clerk.CallTool("send_invoice", map[string]any{"customer": 7})
		_, viaSearch = call(clerk, "send_invoice", map[string]any{"customer": 7})
		var d, v *sake.ToolError
		if !errors.As(direct, &d) || !errors.As(viaSearch, &v) || d.Error() != v.Error() || !strings.Contains(v.Error(), "Invalid arguments for tool send_invoice") {
			t.Fatalf("bad arguments: direct %v, via call_tool %v", direct, viaSearch)
		}
		if sh.invoices.Load() != 0 {
			t.Fatal("a call with bad arguments ran")
		}
		res, err := call(clerk, "send_invoice", invoice)
		if err != nil || res.Text() != "invoice sent to bob" || sh.invoices.Load() != 1 {
			t.Fatalf("call_tool send_invoice = %v, %v", res, err)
		}
		// Disabled, refused by the predicate, unknown, or the search's own
		// tools: unknown, as a direct call of the name is.
		for _, name := range []string{"audit_report", "refund_order", "nope", "call_tool", "search_tools"} {
			_, err := call(clerk, name, nil)
			var e *sake.Error
			if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || e.Message != "Unknown tool: "+name {
				t.Errorf("call_tool %s = %v, want -32602 Unknown tool", name, err)
			}
		}
		for _, bad := range []map[string]any{{}, {"name": ""}, {"name": "weather", "arguments": "x"}, {"name": "weather", "other": 1}} {
			_, err := clerk.CallTool("call_tool", bad)
			var te *sake.ToolError
			if !errors.As(err, &te) || !strings.Contains(te.Error(), "Invalid arguments for tool call_tool") {
				t.Errorf("call_tool %v = %v, want an invalid-arguments result", bad, err)
			}
		}
		if res, err := call(clerk, "weather", map[string]any{"city": "Oslo"}); err != nil || res.Text() != "sunny in Oslo" {
			t.Errorf("call_tool weather = %v, %v", res, err)
		}
		// The covered tools stay callable by name.
		if res, err := clerk.CallTool("weather", map[string]any{"city": "Rome"}); err != nil || res.Text() != "sunny in Rome" {
			t.Errorf("weather = %v, %v", res, err)
		}
	})
}

func TestSearchFollowsTheCatalog(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		sh := newShop(t, toolsearch.Options{})
		c := saketest.Connect(t, sh.srv, opts...)
		if got := found(t, c, "translate a sentence"); len(got) != 0 {
			t.Fatalf("found %v before the tool exists", got)
		}
		if err := sh.srv.AddTool(sake.NewTool("translate", func(*sake.Context, struct{}) (string, error) { return "hola", nil }).
			Description("Translates a sentence into Spanish.")); err != nil {
			t.Fatal(err)
		}
		if got := found(t, c, "translate a sentence"); !slices.Equal(got, []string{"translate"}) {
			t.Fatalf("after AddTool: %v", got)
		}
		sh.srv.Disable(sake.Components{Tools: []string{"translate"}})
		if got := found(t, c, "translate a sentence"); len(got) != 0 {
			t.Fatalf("after Disable: %v", got)
		}
		sh.srv.Enable(sake.Components{Tools: []string{"translate"}})
		sh.srv.RemoveTool("translate")
		if got := found(t, c, "translate a sentence"); len(got) != 0 {
			t.Fatalf("after RemoveTool: %v", got)
		}
	})
}

func TestSearchOverAMount(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		child := newShop(t, toolsearch.Options{}).srv // its own search is not the parent's
		s, err := toolsearch.New(toolsearch.Options{Covers: toolsearch.Namespace("shop"), SearchTool: "shop_search", CallTool: "shop_call"})
		if err != nil {
			t.Fatal(err)
		}
		parent := sake.MustNew(nil, sake.Use(s.Middleware()))
		if err := parent.AddTool(sake.NewTool("clock", func(*sake.Context, struct{}) (string, error) { return "noon", nil }).Description("Tells the time.")); err != nil {
			t.Fatal(err)
		}
		if err := parent.Mount("shop", child); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, parent, append(opts, saketest.Scopes("billing:write"))...)
		if got := listed(t, c); !slices.Equal(got, []string{"clock", "shop_search", "shop_call"}) {
			t.Fatalf("tools/list = %v", got)
		}
		res, err := c.CallTool("shop_search", map[string]any{"query": "forecast"})
		if err != nil || !strings.Contains(res.Text(), `"name":"shop_weather"`) || strings.Contains(res.Text(), `"clock"`) {
			t.Fatalf("shop_search = %v, %v", res, err)
		}
		res, err = c.CallTool("shop_call", map[string]any{"name": "shop_weather", "arguments": map[string]any{"city": "Lima"}})
		if err != nil || res.Text() != "sunny in Lima" {
			t.Fatalf("shop_call = %v, %v", res, err)
		}
	})
}

func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []toolsearch.Options{
		{SearchTool: "has space"},
		{CallTool: strings.Repeat("x", 129)},
		{SearchTool: "same", CallTool: "same"},
		{Results: -1},
		{Results: toolsearch.MaxResults + 1},
	} {
		if _, err := toolsearch.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// TestListPages checks a long list is read whole from the server and
// paged again: every tool the search leaves listed is listed once.
func TestListPages(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		s, err := toolsearch.New(toolsearch.Options{Covers: toolsearch.Namespace("hidden")})
		if err != nil {
			t.Fatal(err)
		}
		srv := sake.MustNew(nil, sake.Use(s.Middleware()))
		var defs []*sake.ToolDef
		for i := range 1500 {
			name := fmt.Sprintf("tool_%04d", i)
			if i%3 == 0 {
				name = fmt.Sprintf("hidden_%04d", i)
			}
			defs = append(defs, sake.NewTool(name, func(*sake.Context, struct{}) (string, error) { return "", nil }))
		}
		if err := srv.AddTool(defs...); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, opts...)
		first, err := c.ListToolsPage("")
		if err != nil || first.NextCursor == "" {
			t.Fatalf("first page: %d tools, cursor %q, %v", len(first.Items), first.NextCursor, err)
		}
		got := listed(t, c)
		if len(got) != 1000+2 || got[len(got)-1] != "call_tool" || slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "hidden_") }) {
			t.Fatalf("listed %d tools, last %s", len(got), got[len(got)-1])
		}
	})
}
