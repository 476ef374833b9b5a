package sake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// shop is the fixture of the transform, tag and visibility tests: ran
// counts the calls that reached its code.
type shop struct{ ran *atomic.Int32 }

func newShop() shop { return shop{ran: new(atomic.Int32)} }

type refundArgs struct {
	Order  string `json:"order" jsonschema:"description=The order to refund"`
	Amount int    `json:"amount,omitempty"`
	Tenant string `json:"tenant"`
	Note   string `json:"note,omitempty"`
}

type shopGreetArgs struct {
	Name string `json:"name"`
}

func (s shop) Declare(d *sake.Declarations) {
	d.Tool("Refund").Description("Refund an order.").Tags("admin").Scopes("shop:admin")
	d.Tool("Ping").Description("Answers pong.").Tags("public").ReadOnly()
	d.Prompt("Greet").Description("Greets someone.").Tags("public")
	d.Resource("Policy", "shop://policy").Description("The refund policy.").Tags("admin")
}

func (s shop) Refund(_ *sake.Context, a refundArgs) (string, error) {
	s.ran.Add(1)
	return fmt.Sprintf("refund %s %d for %s (%s)", a.Order, a.Amount, a.Tenant, a.Note), nil
}

func (s shop) Ping(*sake.Context) (string, error) { s.ran.Add(1); return "pong", nil }

func (shop) Greet(_ *sake.Context, a shopGreetArgs) (string, error) { return "Hello, " + a.Name, nil }

func (shop) Policy(*sake.Context) (string, error) { return "30 days", nil }

// tenantOf is a hidden argument's value computed from the caller.
func tenantOf(c *sake.Context) (any, error) {
	id := c.Identity()
	if id == nil || id.Subject == "" {
		return nil, errors.New("no tenant: sign in")
	}
	return "tenant-" + id.Subject, nil
}

func toolNamed(t *testing.T, c *saketest.Client, name string) *protocol.ToolInfo {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

func shopTools(t *testing.T, c *saketest.Client) []string {
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

type schemaView struct {
	Properties map[string]struct {
		Description string `json:"description"`
		Default     any    `json:"default"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func assertUnknownTool(t *testing.T, err error, name string) {
	t.Helper()
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || !strings.Contains(e.Message, "Unknown tool: "+name) {
		t.Errorf("call of %s: %v, want -32602 Unknown tool", name, err)
	}
}

func TestTransformRenamesAndDescribesATool(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop)
		err := srv.Transform(sake.Transform{Tool: "ping", Name: "health_check", Title: "Health",
			Description: "Tells whether the shop answers.", Annotations: &sake.ToolAnnotations{IdempotentHint: ptrTo(true)}})
		if err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era)
		tl := toolNamed(t, c, "health_check")
		if tl == nil || tl.Description != "Tells whether the shop answers." || tl.Annotations == nil ||
			tl.Annotations.IdempotentHint == nil || tl.Annotations.ReadOnlyHint != nil {
			t.Fatalf("health_check = %+v", tl)
		}
		if c.Session().Era == sake.EraModern && tl.Title != "Health" {
			t.Errorf("title = %q", tl.Title)
		}
		if toolNamed(t, c, "ping") != nil {
			t.Error("the old name is still listed")
		}
		if res, err := c.CallTool("health_check", nil); err != nil || res.Text() != "pong" {
			t.Fatalf("health_check = %v, %v", res, err)
		}
		_, err = c.CallTool("ping", nil)
		assertUnknownTool(t, err, "ping")
		if n := shop.ran.Load(); n != 1 {
			t.Errorf("the tool ran %d times, want 1", n)
		}
	})
}

func TestTransformReshapesArguments(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop)
		err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{
			"order":  {Name: "order_id", Description: "The order, as on the invoice"},
			"amount": {Default: 5},
			"tenant": {ValueFunc: tenantOf},
			"note":   {Value: "via the assistant"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"), saketest.Subject("alice"))
		tl := toolNamed(t, c, "refund")
		if tl == nil {
			t.Fatal("refund is not listed")
		}
		var sch schemaView
		if err := json.Unmarshal(tl.InputSchema, &sch); err != nil {
			t.Fatal(err)
		}
		if _, ok := sch.Properties["tenant"]; ok || len(sch.Properties) != 2 {
			t.Errorf("properties = %+v, want order_id and amount only", sch.Properties)
		}
		if p := sch.Properties["order_id"]; p.Description != "The order, as on the invoice" {
			t.Errorf("order_id = %+v", p)
		}
		if p := sch.Properties["amount"]; p.Default != float64(5) {
			t.Errorf("amount = %+v", p)
		}
		if !slices.Equal(sch.Required, []string{"order_id"}) {
			t.Errorf("required = %v", sch.Required)
		}
		res, err := c.CallTool("refund", map[string]any{"order_id": "A1"})
		if err != nil || res.Text() != "refund A1 5 for tenant-alice (via the assistant)" {
			t.Fatalf("refund = %v, %v", res, err)
		}
		res, err = c.CallTool("refund", map[string]any{"order_id": "A2", "amount": 7})
		if err != nil || res.Text() != "refund A2 7 for tenant-alice (via the assistant)" {
			t.Fatalf("refund with amount = %v, %v", res, err)
		}
		ran := shop.ran.Load()
		// Negatives: a hidden argument, or a renamed one under its old
		// name, is an unknown property, whatever its value; the required
		// renamed argument is still required.
		for name, args := range map[string]map[string]any{
			"hidden":        {"order_id": "A3", "tenant": "tenant-mallory"},
			"hidden fixed":  {"order_id": "A3", "note": "mine"},
			"old name":      {"order": "A3"},
			"missing":       {},
			"unknown":       {"order_id": "A3", "extra": 1},
			"wrong type":    {"order_id": 3},
			"hidden + old":  {"order": "A3", "tenant": "x"},
			"not an object": nil,
		} {
			var arguments any = args
			if args == nil {
				arguments = []int{1}
			}
			res, err := c.CallTool("refund", arguments)
			if !toolErr(res, err) || !strings.Contains(res.Text(), "Invalid arguments for tool refund") {
				t.Errorf("%s: %v, %v", name, res, err)
			}
			if name == "hidden" && !strings.Contains(res.Text(), "tenant: is not allowed (unknown property)") {
				t.Errorf("hidden: %s", res.Text())
			}
			if name == "old name" && !strings.Contains(res.Text(), "order: is not allowed (unknown property)") {
				t.Errorf("old name: %s", res.Text())
			}
		}
		if n := shop.ran.Load(); n != ran {
			t.Errorf("refused calls ran the tool %d times", n-ran)
		}
	})
}

func TestTransformHiddenValueFromTheCaller(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop, sake.Logger(discardLogger()))
		if err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{
			"tenant": {ValueFunc: tenantOf},
		}}); err != nil {
			t.Fatal(err)
		}
		// A machine token has no subject: the ValueFunc's error is the
		// call's isError result.
		c := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"), saketest.Subject(""), saketest.ReturnPanics())
		res, err := c.CallTool("refund", map[string]any{"order": "A1"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "no tenant") {
			t.Fatalf("refund without subject = %v, %v", res, err)
		}
		// Without the scope the requirement refuses, as without the transform.
		other := saketest.Connect(t, srv, era, saketest.Scopes(), saketest.Subject("bob"))
		if _, err := other.CallTool("refund", map[string]any{"order": "A1"}); !errors.As(err, new(*protocol.InsufficientScopeError)) {
			t.Fatalf("refund without scope = %v", err)
		}
		if shop.ran.Load() != 0 {
			t.Error("the tool ran")
		}
		// A ValueFunc that panics is an error result; the server goes on.
		if err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{
			"tenant": {ValueFunc: func(*sake.Context) (any, error) { panic("boom") }},
		}}); err != nil {
			t.Fatal(err)
		}
		res, err = c.CallTool("refund", map[string]any{"order": "A1"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "internal error") {
			t.Fatalf("panicking ValueFunc = %v, %v", res, err)
		}
		if res, err := c.CallTool("ping", nil); err != nil || res.Text() != "pong" {
			t.Fatalf("ping after the panic = %v, %v", res, err)
		}
	})
}

func TestTransformWrap(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		shop := newShop()
		srv := sake.MustNew(shop, sake.Logger(discardLogger()))
		err := srv.Transform(sake.Transform{Tool: "refund", Name: "refund_upper",
			Args: map[string]sake.ArgTransform{"tenant": {Value: "acme"}},
			Wrap: func(c *sake.Context, args map[string]any, call func(map[string]any) (*sake.ToolResult, error)) (*sake.ToolResult, error) {
				if args["order"] == "panic" {
					panic("wrapper panics")
				}
				if args["order"] == "refuse" {
					return nil, errors.New("refunds of that order are closed")
				}
				if args["tenant"] != "acme" {
					return nil, fmt.Errorf("the wrapper sees tenant %v", args["tenant"])
				}
				args["order"] = strings.ToUpper(args["order"].(string))
				res, err := call(args)
				if err != nil {
					return nil, err
				}
				return sake.TextResult(res.Text() + "!"), nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era, saketest.Scopes("shop:admin"), saketest.ReturnPanics())
		res, err := c.CallTool("refund_upper", map[string]any{"order": "a1"})
		if err != nil || res.Text() != "refund A1 0 for acme ()!" {
			t.Fatalf("wrapped = %v, %v", res, err)
		}
		res, err = c.CallTool("refund_upper", map[string]any{"order": "refuse"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "closed") {
			t.Fatalf("wrapper error = %v, %v", res, err)
		}
		res, err = c.CallTool("refund_upper", map[string]any{"order": "panic"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "internal error") {
			t.Fatalf("wrapper panic = %v, %v", res, err)
		}
		res, err = c.CallTool("refund_upper", map[string]any{"order": "a1", "tenant": "other"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "tenant: is not allowed (unknown property)") {
			t.Fatalf("hidden argument sent to a wrapped tool = %v, %v", res, err)
		}
		if n := shop.ran.Load(); n != 1 {
			t.Errorf("the tool ran %d times, want 1", n)
		}
	})
}

func TestTransformOutputSchema(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop())
	out := json.RawMessage(`{"type":"object","properties":{"status":{"type":"string"}}}`)
	if err := srv.Transform(sake.Transform{Tool: "ping", OutputSchema: out,
		Wrap: func(c *sake.Context, args map[string]any, call func(map[string]any) (*sake.ToolResult, error)) (*sake.ToolResult, error) {
			res, err := call(args)
			if err != nil {
				return nil, err
			}
			return &sake.ToolResult{Content: res.Content, StructuredContent: json.RawMessage(`{"status":"` + res.Text() + `"}`)}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	if tl := toolNamed(t, c, "ping"); tl == nil || string(tl.OutputSchema) != string(out) {
		t.Fatalf("ping = %+v", tl)
	}
	res, err := c.CallTool("ping", nil)
	if sc, _ := json.Marshal(res.StructuredContent); err != nil || string(sc) != `{"status":"pong"}` {
		t.Fatalf("ping = %+v, %v", res, err)
	}
}

func TestTransformPromptsAndResources(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(newShop())
		if err := srv.Transform(
			sake.Transform{Prompt: "greet", Name: "welcome", Description: "Welcomes a customer."},
			sake.Transform{Resource: "shop://policy", Name: "refund_policy", Title: "Refund policy", Description: "How refunds work."},
		); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era)
		ps, err := c.ListPrompts()
		if err != nil || len(ps) != 1 || ps[0].Name != "welcome" || ps[0].Description != "Welcomes a customer." {
			t.Fatalf("prompts = %+v, %v", ps, err)
		}
		if res, err := c.GetPrompt("welcome", map[string]string{"name": "Ada"}); err != nil || res.Text() != "Hello, Ada" {
			t.Fatalf("welcome = %+v, %v", res, err)
		}
		var e *sake.Error
		if _, err := c.GetPrompt("greet", map[string]string{"name": "Ada"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("old prompt name = %v", err)
		}
		rs, err := c.ListResources()
		if err != nil || len(rs) != 1 || rs[0].URI != "shop://policy" || rs[0].Name != "refund_policy" || rs[0].Description != "How refunds work." {
			t.Fatalf("resources = %+v, %v", rs, err)
		}
		if got, err := c.ReadResource("shop://policy"); err != nil || got[0].Text != "30 days" {
			t.Fatalf("read = %+v, %v", got, err)
		}
	})
}

func TestTransformAppliesToComponentsAddedLater(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(nil, sake.Logger(discardLogger()))
		// Neither tool exists yet: the transforms are kept.
		if err := srv.Transform(
			sake.Transform{Tool: "remote_lookup", Name: "lookup", Args: map[string]sake.ArgTransform{"account": {Value: "acct-1"}}},
			sake.Transform{Tool: "misfit", Args: map[string]sake.ArgTransform{"nope": {Value: 1}}},
		); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era)
		l := saketest.Listen(t, srv)
		// A tool like a proxy's: free-form arguments, a schema given
		// verbatim that does not refuse unknown properties.
		lookup := sake.NewTool("remote_lookup", func(_ *sake.Context, args json.RawMessage) (string, error) {
			return string(args), nil
		}).InputSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"account":{"type":"string"}},"required":["q","account"]}`))
		misfit := sake.NewTool("misfit", func(*sake.Context) (string, error) { return "ran", nil })
		// misfit does not fit its transform: AddTool says so and adds
		// neither.
		if err := srv.AddTool(lookup, misfit); err == nil || !strings.Contains(err.Error(), "tool misfit does not fit the transform installed for it: the tool has no argument nope") {
			t.Fatalf("AddTool with a misfit = %v", err)
		}
		if names := shopTools(t, c); len(names) != 0 {
			t.Fatalf("tools after a refused AddTool = %v", names)
		}
		if err := srv.AddTool(lookup); err != nil {
			t.Fatal(err)
		}
		saketest.AssertListChanged(t, l, sake.ListTools)
		if names := shopTools(t, c); !slices.Equal(names, []string{"lookup"}) {
			t.Fatalf("tools = %v", names)
		}
		res, err := c.CallTool("lookup", map[string]any{"q": "x"})
		if err != nil || res.Text() != `{"q":"x","account":"acct-1"}` {
			t.Fatalf("lookup = %v, %v", res, err)
		}
		// The open schema would let account through: the transform refuses it.
		res, err = c.CallTool("lookup", map[string]any{"q": "x", "account": "acct-2"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "account: is not allowed (unknown property)") {
			t.Fatalf("hidden argument through an open schema = %v, %v", res, err)
		}
		_, err = c.CallTool("remote_lookup", map[string]any{"q": "x"})
		assertUnknownTool(t, err, "remote_lookup")
		_, err = c.CallTool("misfit", nil)
		assertUnknownTool(t, err, "misfit")
		// Removing the transform restores the tool as it is.
		if err := srv.Transform(sake.Transform{Tool: "misfit"}); err != nil {
			t.Fatal(err)
		}
		if err := srv.AddTool(misfit); err != nil {
			t.Fatal(err)
		}
		if res, err := c.CallTool("misfit", nil); err != nil || res.Text() != "ran" {
			t.Fatalf("misfit after its transform is removed = %v, %v", res, err)
		}
	})
}

func TestTransformRefusesWhatCannotBe(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop())
	c := saketest.Connect(t, srv)
	before := shopTools(t, c)
	for name, tc := range map[string]struct {
		tr   []sake.Transform
		want string
	}{
		"no target":          {[]sake.Transform{{Name: "x"}}, "exactly one of Tool, Prompt or Resource"},
		"two targets":        {[]sake.Transform{{Tool: "ping", Prompt: "greet"}}, "exactly one"},
		"args on a prompt":   {[]sake.Transform{{Prompt: "greet", Args: map[string]sake.ArgTransform{"name": {Value: "x"}}}}, "tools only"},
		"bad name":           {[]sake.Transform{{Tool: "ping", Name: "no spaces"}}, "is not 1 to 128"},
		"unknown argument":   {[]sake.Transform{{Tool: "refund", Args: map[string]sake.ArgTransform{"orderr": {Name: "o"}}}}, "has no argument orderr"},
		"required hidden":    {[]sake.Transform{{Tool: "refund", Args: map[string]sake.ArgTransform{"tenant": {Hide: true}}}}, "argument tenant is required"},
		"value and func":     {[]sake.Transform{{Tool: "refund", Args: map[string]sake.ArgTransform{"tenant": {Value: "a", ValueFunc: tenantOf}}}}, "not both"},
		"hidden described":   {[]sake.Transform{{Tool: "refund", Args: map[string]sake.ArgTransform{"tenant": {Value: "a", Description: "x"}}}}, "hidden argument"},
		"same new arg name":  {[]sake.Transform{{Tool: "refund", Args: map[string]sake.ArgTransform{"order": {Name: "id"}, "note": {Name: "id"}}}}, "both renamed id"},
		"onto another arg":   {[]sake.Transform{{Tool: "refund", Args: map[string]sake.ArgTransform{"note": {Name: "order"}}}}, "would both be called order"},
		"name taken":         {[]sake.Transform{{Tool: "ping", Name: "refund"}}, "the name refund is taken"},
		"two onto one name":  {[]sake.Transform{{Tool: "ping", Name: "x"}, {Tool: "refund", Name: "x"}}, "both rename it x"},
		"bad output schema":  {[]sake.Transform{{Tool: "ping", OutputSchema: json.RawMessage(`{"type":7}`)}}, "output schema"},
		"one bad, one good":  {[]sake.Transform{{Tool: "ping", Name: "fine"}, {Tool: "refund", Args: map[string]sake.ArgTransform{"zz": {}}}}, "has no argument zz"},
		"prompt name taken?": {[]sake.Transform{{Prompt: "greet", Name: "greet2"}, {Prompt: "other", Name: "greet2"}}, "both rename it greet2"},
	} {
		err := srv.Transform(tc.tr...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	if after := shopTools(t, c); !slices.Equal(before, after) {
		t.Errorf("refused transforms changed the tools: %v -> %v", before, after)
	}
	// Swapping two names is allowed.
	if err := srv.Transform(sake.Transform{Tool: "ping", Name: "refund"}, sake.Transform{Tool: "refund", Name: "ping"}); err != nil {
		t.Fatalf("swap: %v", err)
	}
	if res, err := saketest.Connect(t, srv).CallTool("refund", nil); err != nil || res.Text() != "pong" {
		t.Fatalf("swapped refund = %v, %v", res, err)
	}
}

func TestTransformSchemaBuiltOnce(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop())
	if err := srv.Transform(sake.Transform{Tool: "refund", Args: map[string]sake.ArgTransform{"tenant": {Value: "a"}}}); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv, saketest.Scopes("shop:admin"))
	first := toolNamed(t, c, "refund").InputSchema
	// Another component changing republishes the registry; the reshaped
	// tool is the one built before.
	if err := srv.AddTool(sake.NewTool("extra", func(*sake.Context) (string, error) { return "", nil })); err != nil {
		t.Fatal(err)
	}
	if got := toolNamed(t, c, "refund").InputSchema; string(got) != string(first) {
		t.Errorf("schema changed: %s -> %s", first, got)
	}
	if !sake.SameTool(srv, "refund", func() {
		_ = srv.AddTool(sake.NewTool("extra2", func(*sake.Context) (string, error) { return "", nil }))
	}) {
		t.Error("the reshaped tool was rebuilt when another tool was added")
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// toolErr reports whether a call answered with an isError result.
func toolErr(res *sake.ToolResult, err error) bool {
	return res != nil && res.IsError && errors.As(err, new(*sake.ToolError))
}

func TestTransformOfATaskTool(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		m := tasks.New()
		t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
		srv := sake.MustNew(nil, sake.Tasks(m))
		long := sake.NewTool("long", func(_ *sake.Context, a map[string]any) (string, error) {
			return fmt.Sprintf("%v for %v", a["job"], a["owner"]), nil
		}).InputSchema(json.RawMessage(`{"type":"object","properties":{"job":{"type":"string"},"owner":{"type":"string"}},"required":["job","owner"]}`)).Task(sake.TaskRequired)
		if err := srv.AddTool(long); err != nil {
			t.Fatal(err)
		}
		if err := srv.Transform(sake.Transform{Tool: "long", Name: "long_job", Args: map[string]sake.ArgTransform{
			"owner": {ValueFunc: func(c *sake.Context) (any, error) { return c.Identity().Subject, nil }},
		}}); err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, era, saketest.Scopes(), saketest.Subject("ada"))
		res, err := c.CallTool("long_job", map[string]any{"job": "index"})
		if err != nil || res.Text() != "index for ada" {
			t.Fatalf("long_job = %v, %v", res, err)
		}
		res, err = c.CallTool("long_job", map[string]any{"job": "index", "owner": "bob"})
		if !toolErr(res, err) || !strings.Contains(res.Text(), "owner: is not allowed") {
			t.Fatalf("long_job with owner = %v, %v", res, err)
		}
	})
}

// TestReshapingWhileCalling changes transforms and rules while calls and
// lists run, for the race detector.
func TestReshapingWhileCalling(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop())
	c := saketest.Connect(t, srv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			if i%2 == 0 {
				srv.Disable(sake.Components{Tags: []string{"public"}})
				_ = srv.Transform(sake.Transform{Tool: "ping", Description: fmt.Sprint("pass ", i)})
			} else {
				srv.Enable(sake.Components{Tags: []string{"public"}})
				_ = srv.Transform(sake.Transform{Tool: "ping"})
			}
		}
	}()
	for range 50 {
		res, err := c.CallTool("ping", nil)
		var e *sake.Error
		if err != nil && (!errors.As(err, &e) || e.Code != sake.CodeInvalidParams) {
			t.Fatalf("ping = %v, %v", res, err)
		}
		if _, err := c.ListTools(); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	srv.Enable(sake.Components{Tags: []string{"public"}})
	if res, err := c.CallTool("ping", nil); err != nil || res.Text() != "pong" {
		t.Fatalf("ping at the end = %v, %v", res, err)
	}
}

func TestTransformKeepsItsNameAgainstALaterComponent(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(newShop(), sake.Logger(discardLogger()))
	if err := srv.Transform(sake.Transform{Tool: "ping", Name: "status"}); err != nil {
		t.Fatal(err)
	}
	// A tool that comes later with the name a rename claimed is shadowed.
	if err := srv.AddTool(sake.NewTool("status", func(*sake.Context) (string, error) { return "late", nil })); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	if names := shopTools(t, c); !slices.Equal(names, []string{"refund", "status"}) {
		t.Fatalf("tools = %v", names)
	}
	if res, err := c.CallTool("status", nil); err != nil || res.Text() != "pong" {
		t.Fatalf("status = %v, %v", res, err)
	}
	// The server's own methods keep the source names.
	if !srv.RemoveTool("ping") {
		t.Fatal("RemoveTool of the source name")
	}
	if res, err := c.CallTool("status", nil); err != nil || res.Text() != "late" {
		t.Fatalf("status after the renamed tool is removed = %v, %v", res, err)
	}
}
