package sake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// billing is a server value whose method components must keep running
// on it when mounted elsewhere.
type billing struct{ company string }

type mntRefundArgs struct {
	Amount int `json:"amount"`
}

type summaryArgs struct {
	Month string `json:"month"`
}

func (b *billing) Refund(_ *sake.Context, a mntRefundArgs) (string, error) {
	return fmt.Sprintf("%s refunded %d", b.company, a.Amount), nil
}

func (b *billing) Note(_ *sake.Context, v map[string]string) (string, error) {
	return b.company + " note " + v["id"], nil
}

func (b *billing) Invoice(*sake.Context) (string, error) { return "invoice of " + b.company, nil }

func (b *billing) Summary(_ *sake.Context, a summaryArgs) (string, error) {
	return b.company + " summary of " + a.Month, nil
}

func (b *billing) Declare(d *sake.Declarations) {
	d.ResourceTemplate("Note", "notes://{id}")
	d.Resource("Invoice", "invoice://current")
	d.Prompt("Summary").Complete("month", func(_ *sake.Context, r sake.CompleteRequest) ([]string, error) {
		return []string{r.Value + "rch", r.Value + "y"}, nil
	})
}

func newMountedShop(t testing.TB, opts ...sake.Option) *sake.Server {
	t.Helper()
	shop, err := sake.New(nil, append([]sake.Option{sake.Name("shop", "1.0.0")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := shop.AddTool(sake.NewTool("own", func(*sake.Context) (string, error) { return "the shop's own", nil })); err != nil {
		t.Fatal(err)
	}
	return shop
}

func mustMount(t testing.TB, parent *sake.Server, ns string, child *sake.Server) {
	t.Helper()
	if err := parent.Mount(ns, child); err != nil {
		t.Fatal(err)
	}
}

func mountedToolNames(t testing.TB, c *saketest.Client) []string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ti := range tools {
		names = append(names, ti.Name)
	}
	return names
}

func TestMountNamespacesEveryKind(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		shop := newMountedShop(t)
		mustMount(t, shop, "billing", sake.MustNew(&billing{company: "acme"}, sake.Name("billing", "1.0.0")))
		c := saketest.Connect(t, shop, opts...)

		if names := mountedToolNames(t, c); !slices.Equal(names, []string{"billing_refund", "own"}) {
			t.Fatalf("tools = %v", names)
		}
		if res, err := c.CallTool("billing_refund", map[string]any{"amount": 5}); err != nil || res.Text() != "acme refunded 5" {
			t.Fatalf("billing_refund = %v, %v", res, err)
		}
		// The child's schema still holds in the parent.
		if res, err := c.CallTool("billing_refund", map[string]any{"amount": "five"}); err == nil && !res.IsError {
			t.Fatalf("a wrong argument was accepted: %v", res.Text())
		}
		// The child's own name is not the parent's.
		if _, err := c.CallTool("refund", map[string]any{"amount": 5}); !hasCode(err, sake.CodeInvalidParams) {
			t.Fatalf("refund under its child name = %v", err)
		}

		contents, err := c.ReadResource("billing+invoice://current")
		if err != nil || len(contents) != 1 || contents[0].Text != "invoice of acme" || contents[0].URI != "billing+invoice://current" {
			t.Fatalf("invoice = %+v, %v", contents, err)
		}
		contents, err = c.ReadResource("billing+notes://7")
		if err != nil || len(contents) != 1 || contents[0].Text != "acme note 7" || contents[0].URI != "billing+notes://7" {
			t.Fatalf("note = %+v, %v", contents, err)
		}
		if _, err := c.ReadResource("notes://7"); err == nil {
			t.Fatal("the child's URI was served by the parent")
		}
		templates, err := c.ListResourceTemplates()
		if err != nil || len(templates) != 1 || templates[0].URITemplate != "billing+notes://{id}" {
			t.Fatalf("templates = %+v, %v", templates, err)
		}

		pr, err := c.GetPrompt("billing_summary", map[string]string{"month": "may"})
		if err != nil || len(pr.Messages) != 1 {
			t.Fatalf("prompt = %+v, %v", pr, err)
		}
		comp, err := c.Complete(protocol.PromptRef("billing_summary"), "month", "ma", nil)
		if err != nil || !slices.Equal(comp.Values, []string{"march", "may"}) {
			t.Fatalf("completion = %+v, %v", comp, err)
		}
	})
}

func hasCode(err error, code int) bool {
	var e *sake.Error
	return errors.As(err, &e) && e.Code == code
}

func TestMountEmptyNamespaceMerges(t *testing.T) {
	t.Parallel()
	shop := newMountedShop(t)
	mustMount(t, shop, "", sake.MustNew(&billing{company: "acme"}, sake.Name("billing", "1.0.0")))
	c := saketest.Connect(t, shop)
	if names := mountedToolNames(t, c); !slices.Equal(names, []string{"own", "refund"}) {
		t.Fatalf("tools = %v", names)
	}
	if contents, err := c.ReadResource("notes://1"); err != nil || contents[0].URI != "notes://1" {
		t.Fatalf("note = %+v, %v", contents, err)
	}
}

func TestMountIsLive(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		shop := newMountedShop(t)
		child := sake.MustNew(nil, sake.Name("memo", "1.0.0"))
		mustMount(t, shop, "memo", child)
		l := saketest.Listen(t, shop)
		c := saketest.Connect(t, shop, opts...)

		if err := child.AddTool(sake.NewTool("late", func(*sake.Context) (string, error) { return "late but here", nil })); err != nil {
			t.Fatal(err)
		}
		saketest.AssertListChanged(t, l, sake.ListTools)
		if res, err := c.CallTool("memo_late", nil); err != nil || res.Text() != "late but here" {
			t.Fatalf("memo_late = %v, %v", res, err)
		}
		if err := child.AddResource(sake.NewResource("mem://a", func(*sake.Context) (string, error) { return "a", nil })); err != nil {
			t.Fatal(err)
		}
		saketest.AssertListChanged(t, l, sake.ListResources)
		child.ResourceUpdated("mem://a")
		saketest.AssertResourceUpdated(t, l, "memo+mem://a")

		child.RemoveTool("late")
		if names := mountedToolNames(t, c); slices.Contains(names, "memo_late") {
			t.Fatalf("a removed tool is still listed: %v", names)
		}
		if _, err := c.CallTool("memo_late", nil); !hasCode(err, sake.CodeInvalidParams) {
			t.Fatalf("a removed tool answered: %v", err)
		}
	})
}

func TestMountConflictsNameBothSides(t *testing.T) {
	t.Parallel()
	shop := newMountedShop(t)
	if err := shop.AddTool(sake.NewTool("billing_refund", func(*sake.Context) (string, error) { return "the shop's", nil })); err != nil {
		t.Fatal(err)
	}
	err := shop.Mount("billing", sake.MustNew(&billing{company: "acme"}, sake.Name("billing", "1.0.0")))
	if err == nil || !strings.Contains(err.Error(), `tool billing_refund of mounted server "billing"`) || !strings.Contains(err.Error(), `server "shop"`) {
		t.Fatalf("err = %v", err)
	}
	c := saketest.Connect(t, shop)
	if names := mountedToolNames(t, c); !slices.Equal(names, []string{"billing_refund", "own"}) {
		t.Fatalf("a failed mount changed the tools: %v", names)
	}
	if _, err := c.ReadResource("billing+invoice://current"); err == nil {
		t.Fatal("a failed mount added a resource")
	}
	if res, _ := c.CallTool("billing_refund", nil); res.Text() != "the shop's" {
		t.Fatalf("billing_refund = %v", res.Text())
	}

	// Two servers merged under the empty namespace.
	one := sake.MustNew(nil, sake.Name("one", "1.0.0"))
	two := sake.MustNew(nil, sake.Name("two", "1.0.0"))
	echo := func(*sake.Context) (string, error) { return "echo", nil }
	if err := one.AddTool(sake.NewTool("echo", echo)); err != nil {
		t.Fatal(err)
	}
	if err := two.AddTool(sake.NewTool("echo", echo)); err != nil {
		t.Fatal(err)
	}
	both := sake.MustNew(nil, sake.Name("both", "1.0.0"))
	mustMount(t, both, "", one)
	err = both.Mount("", two)
	if err == nil || !strings.Contains(err.Error(), `mounted server "two"`) || !strings.Contains(err.Error(), `mounted server "one"`) {
		t.Fatalf("err = %v", err)
	}

	// A conflicting component added later is left out; the parent's stays.
	late := sake.MustNew(nil, sake.Name("late", "1.0.0"))
	mustMount(t, shop, "x", late)
	if err := shop.AddTool(sake.NewTool("x_t", func(*sake.Context) (string, error) { return "parent", nil })); err != nil {
		t.Fatal(err)
	}
	if err := late.AddTool(sake.NewTool("t", func(*sake.Context) (string, error) { return "child", nil })); err != nil {
		t.Fatal(err)
	}
	if res, _ := c.CallTool("x_t", nil); res.Text() != "parent" {
		t.Fatalf("x_t = %v", res.Text())
	}
}

func TestMountRefusals(t *testing.T) {
	t.Parallel()
	shop := newMountedShop(t)
	child := sake.MustNew(nil, sake.Name("child", "1.0.0"))
	for _, ns := range []string{"bad_ns", "1st", "a b", "x+y", strings.Repeat("n", 65)} {
		if err := shop.Mount(ns, child); err == nil {
			t.Errorf("namespace %q was accepted", ns)
		}
	}
	if err := shop.Mount("me", shop); err == nil {
		t.Error("a server was mounted into itself")
	}
	if err := shop.Mount("nil", nil); err == nil {
		t.Error("a nil server was mounted")
	}
	mustMount(t, shop, "child", child)
	if err := shop.Mount("again", child); err == nil {
		t.Error("a server was mounted twice")
	}
	if err := child.Mount("loop", shop); err == nil {
		t.Error("a cycle of mounts was accepted")
	}
	many := sake.MustNew(nil)
	for i := range 64 {
		mustMount(t, many, fmt.Sprintf("n%d", i), sake.MustNew(nil))
	}
	if err := many.Mount("n64", sake.MustNew(nil)); err == nil || !strings.Contains(err.Error(), "64") {
		t.Errorf("the 65th mount = %v", err)
	}
}

func TestUnmount(t *testing.T) {
	t.Parallel()
	shop := newMountedShop(t)
	child := sake.MustNew(&billing{company: "acme"})
	mustMount(t, shop, "billing", child)
	l := saketest.Listen(t, shop)
	if !shop.Unmount(child) {
		t.Fatal("Unmount = false")
	}
	saketest.AssertListChanged(t, l, sake.ListTools)
	c := saketest.Connect(t, shop)
	if names := mountedToolNames(t, c); !slices.Equal(names, []string{"own"}) {
		t.Fatalf("tools = %v", names)
	}
	if shop.Unmount(child) {
		t.Fatal("a second Unmount = true")
	}
	// Changes of an unmounted server reach the parent no more.
	if err := child.AddTool(sake.NewTool("after", func(*sake.Context) (string, error) { return "", nil })); err != nil {
		t.Fatal(err)
	}
	if names := mountedToolNames(t, c); !slices.Equal(names, []string{"own"}) {
		t.Fatalf("tools = %v", names)
	}
	mustMount(t, shop, "billing", child) // and it mounts again
}

func TestMountKeepsTheChildsRequirements(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		shop := newMountedShop(t)
		child := sake.MustNew(&billing{company: "acme"}, sake.RequireScopes("billing"))
		if err := child.AddTool(sake.NewTool("wipe", func(*sake.Context) (string, error) { return "wiped", nil }).Scopes("admin")); err != nil {
			t.Fatal(err)
		}
		mustMount(t, shop, "billing", child)
		var scopeErr *protocol.InsufficientScopeError

		outsider := saketest.Connect(t, shop, append(opts, saketest.Scopes("shop"))...)
		if res, err := outsider.CallTool("own", nil); err != nil || res.Text() != "the shop's own" {
			t.Fatalf("own = %v, %v", res, err)
		}
		if _, err := outsider.CallTool("billing_refund", map[string]any{"amount": 1}); !errors.As(err, &scopeErr) {
			t.Fatalf("billing_refund without the child's scope = %v", err)
		}
		if _, err := outsider.ReadResource("billing+invoice://current"); !errors.As(err, &scopeErr) {
			t.Fatalf("invoice without the child's scope = %v", err)
		}
		clerk := saketest.Connect(t, shop, append(opts, saketest.Scopes("billing"))...)
		if res, err := clerk.CallTool("billing_refund", map[string]any{"amount": 1}); err != nil || res.Text() != "acme refunded 1" {
			t.Fatalf("billing_refund with the scope = %v, %v", res, err)
		}
		if _, err := clerk.CallTool("billing_wipe", nil); !errors.As(err, &scopeErr) {
			t.Fatalf("billing_wipe without admin = %v", err)
		}
	})
}

type confirmForm struct {
	Sure bool `json:"sure"`
}

func TestMountAsksTheCaller(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		shop := newMountedShop(t)
		child := sake.MustNew(nil)
		err := child.AddTool(sake.NewTool("ask", func(ctx *sake.Context) (string, error) {
			var f confirmForm
			action, err := ctx.Elicit("sure", "Are you sure?", &f)
			if err != nil {
				return "", err
			}
			sampled, err := ctx.Sample("model", sake.SamplingRequest{MaxTokens: 10,
				Messages: []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("hi")}}})
			if err != nil {
				return "", err
			}
			roots, err := ctx.ListRoots("roots")
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s %v %s %s %s", action, f.Sure, ctx.Identity().Subject, sampled.Text(), roots[0].URI), nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		mustMount(t, shop, "q", child)
		c := saketest.Connect(t, shop, append(opts, saketest.Scopes(), saketest.Subject("ann"),
			saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
				return saketest.Accept(map[string]any{"sure": true})
			}),
			saketest.SamplingText("sampled"), saketest.Roots(sake.Root{URI: "file:///work"}))...)
		if res, err := c.CallTool("q_ask", nil); err != nil || res.Text() != "accept true ann sampled file:///work" {
			t.Fatalf("q_ask = %v, %v", res, err)
		}
	})
}

func TestMountTasksBelongToTheCaller(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		m := tasks.New()
		t.Cleanup(func() { _ = m.Shutdown(t.Context()) })
		shop := newMountedShop(t, sake.Tasks(m))
		child := sake.MustNew(nil)
		release := make(chan struct{})
		err := child.AddTool(sake.NewTool("slow", func(ctx *sake.Context) (string, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "done", nil
		}).Task(sake.TaskRequired))
		if err != nil {
			t.Fatal(err)
		}
		mustMount(t, shop, "jobs", child)
		ann := saketest.Connect(t, shop, append(opts, saketest.Scopes(), saketest.Subject("ann"))...)
		bob := saketest.Connect(t, shop, append(opts, saketest.Scopes(), saketest.Subject("bob"))...)
		_, task, err := ann.CallToolAsync("jobs_slow", nil)
		if err != nil || task == nil {
			t.Fatalf("jobs_slow = %v, %v", task, err)
		}
		if _, err := bob.GetTask(task.ID); err == nil {
			t.Fatal("another caller read the task")
		}
		if err := bob.CancelTask(task.ID); err == nil {
			t.Fatal("another caller cancelled the task")
		}
		close(release)
		if res, err := ann.TaskResult(task.ID); err != nil || res.Text() != "done" {
			t.Fatalf("result = %v, %v", res, err)
		}
	})
}

// BenchmarkMountedToolsCall is BenchmarkDispatchToolsCall through a
// mount: the tool is the child's, called from the parent.
func BenchmarkMountedToolsCall(b *testing.B) {
	parent := sake.MustNew(nil)
	if err := parent.Mount("bench", sake.MustNew(benchServer{})); err != nil {
		b.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}},"name":"bench_echo","arguments":{"text":"hello"}}}`)
	in := &sake.Inbound{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := parent.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}

func TestMountCarriesProgressLogsAndCancellation(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		shop := newMountedShop(t)
		child := sake.MustNew(nil)
		started, stopped := make(chan struct{}), make(chan error, 1)
		err := child.AddTool(
			sake.NewTool("report", func(ctx *sake.Context) (string, error) {
				_ = ctx.Progress(1, 2, "half way")
				ctx.Log(sake.LevelWarning, "child", "careful")
				return "reported", nil
			}),
			sake.NewTool("wait", func(ctx *sake.Context) (string, error) {
				close(started)
				<-ctx.Done()
				stopped <- ctx.Err()
				return "", ctx.Err()
			}),
		)
		if err != nil {
			t.Fatal(err)
		}
		mustMount(t, shop, "c", child)
		c := saketest.Connect(t, shop, append(opts, saketest.LogLevel(sake.LevelInfo))...)
		if res, err := c.CallTool("c_report", nil); err != nil || res.Text() != "reported" {
			t.Fatalf("c_report = %v, %v", res, err)
		}
		saketest.AssertNotification(t, c, "notifications/progress", map[string]any{"progress": 1, "total": 2, "message": "half way"})
		saketest.AssertNotification(t, c, "notifications/message", map[string]any{"level": "warning", "data": "careful"})

		ctx, cancel := context.WithCancel(t.Context())
		errs := make(chan error, 1)
		go func() {
			_, err := c.WithContext(ctx).CallTool("c_wait", nil)
			errs <- err
		}()
		<-started
		cancel()
		if err := <-stopped; err == nil {
			t.Fatal("the mounted tool's context did not end")
		}
		<-errs
	})
}

func TestMountKeepsViewURIs(t *testing.T) {
	t.Parallel()
	child := sake.MustNew(nil)
	if err := child.AddView(sake.NewView("ui://card", "<!DOCTYPE html><html><body>card</body></html>")); err != nil {
		t.Fatal(err)
	}
	if err := child.AddTool(sake.NewTool("show", func(*sake.Context) (string, error) { return "shown", nil }).View("ui://card")); err != nil {
		t.Fatal(err)
	}
	shop := newMountedShop(t)
	mustMount(t, shop, "cards", child)
	c := saketest.Connect(t, shop, saketest.UI())
	v, err := c.View("cards_show")
	if err != nil || !strings.Contains(v.HTML, "card") {
		t.Fatalf("the view of cards_show = %+v, %v", v, err)
	}
	// A second server with the same view conflicts, naming both.
	other := sake.MustNew(nil, sake.Name("other", "1.0.0"))
	if err := other.AddView(sake.NewView("ui://card", "<!DOCTYPE html><html></html>")); err != nil {
		t.Fatal(err)
	}
	if err := shop.Mount("other", other); err == nil || !strings.Contains(err.Error(), "ui://card") {
		t.Fatalf("two mounts of one view = %v", err)
	}
}

// A subscriber of the parent hears the child's resource updates under
// the rewritten URI, in both eras, and nothing of the resources it did
// not subscribe to.
func TestMountResourceUpdatesReachSubscribers(t *testing.T) {
	t.Parallel()
	for _, era := range []struct {
		name string
		opts []client.Option
	}{{"modern", nil}, {"legacy", []client.Option{client.ProtocolVersion(protocol.LegacyVersion)}}} {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			child := sake.MustNew(nil)
			for _, uri := range []string{"mem://a", "mem://b"} {
				if err := child.AddResource(sake.NewResource(uri, func(*sake.Context) (string, error) { return uri, nil })); err != nil {
					t.Fatal(err)
				}
			}
			shop := newMountedShop(t)
			mustMount(t, shop, "memo", child)
			c, err := client.Connect(t.Context(), memory.Transport(shop), era.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			updates := make(chan string, 4)
			sub, err := c.Listen(t.Context(), client.Filter{Resources: []string{"memo+mem://a"}}, func(n protocol.Notification) {
				if n.Method == "notifications/resources/updated" {
					var p struct {
						URI string `json:"uri"`
					}
					_ = json.Unmarshal(n.Params, &p)
					updates <- p.URI
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			child.ResourceUpdated("mem://b") // not subscribed to
			child.ResourceUpdated("mem://a")
			if got := <-updates; got != "memo+mem://a" {
				t.Fatalf("update = %q", got)
			}
		})
	}
}
