package client_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestConnectSettlesTheEra(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		info := c.Info()
		if info.Era != era {
			t.Fatalf("era = %v, want %v", info.Era, era)
		}
		if info.Server.Name == "" || !info.HasCapability("tools") {
			t.Fatalf("info = %+v", info)
		}
		if era == protocol.EraModern && (info.ProtocolVersion != protocol.ModernVersion || !slices.Contains(info.SupportedVersions, protocol.ModernVersion)) {
			t.Fatalf("modern info = %+v", info)
		}
		if era == protocol.EraLegacy && info.ProtocolVersion != protocol.LegacyVersion {
			t.Fatalf("legacy version = %q", info.ProtocolVersion)
		}
		if err := c.Ping(t.Context()); err != nil {
			t.Fatalf("ping: %v", err)
		}
	})
}

func TestListsFollowPages(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		ctx := t.Context()
		tools, err := c.ListTools(ctx)
		if err != nil || len(tools) != 11 {
			t.Fatalf("tools = %d, %v", len(tools), err)
		}
		page, err := c.ListToolsPage(ctx, "")
		if err != nil || len(page.Items) != 3 || page.NextCursor == "" {
			t.Fatalf("first page = %+v, %v", page, err)
		}
		if _, err := c.ListToolsPage(ctx, "not-a-cursor"); !isCode(err, protocol.CodeInvalidParams) {
			t.Fatalf("bad cursor: %v", err)
		}
		res, err := c.ListResources(ctx)
		if err != nil || len(res) != 1 || res[0].URI != "kit://readme" {
			t.Fatalf("resources = %+v, %v", res, err)
		}
		tmpl, err := c.ListResourceTemplates(ctx)
		if err != nil || len(tmpl) != 1 || tmpl[0].URITemplate != "kit://items/{id}" {
			t.Fatalf("templates = %+v, %v", tmpl, err)
		}
		prompts, err := c.ListPrompts(ctx)
		if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" {
			t.Fatalf("prompts = %+v, %v", prompts, err)
		}
	})
}

func isCode(err error, code int) bool {
	var e *protocol.Error
	return errors.As(err, &e) && e.Code == code
}

func TestCallsAndErrors(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		ctx := t.Context()
		res, err := c.CallTool(ctx, "echo", map[string]string{"text": "hi"})
		if err != nil || res.Text() != "hi" {
			t.Fatalf("echo = %v, %v", res, err)
		}
		res, err = c.CallTool(ctx, "fail", nil)
		var te *protocol.ToolError
		if !errors.As(err, &te) || res == nil || !res.IsError || res.Text() != "it went wrong" {
			t.Fatalf("fail = %v, %v", res, err)
		}
		if _, err := c.CallTool(ctx, "refuse", nil); !isCode(err, protocol.CodeInvalidParams) {
			t.Fatalf("refuse: %v", err)
		}
		if _, err := c.CallTool(ctx, "no_such_tool", nil); !isCode(err, protocol.CodeInvalidParams) {
			t.Fatalf("unknown tool: %v", err)
		}
		if _, err := c.CallTool(ctx, "echo", []int{1}); err == nil {
			t.Fatal("array arguments were sent")
		}
		contents, err := c.ReadResource(ctx, "kit://items/7")
		if err != nil || len(contents) != 1 || contents[0].Text != "item 7" {
			t.Fatalf("read = %+v, %v", contents, err)
		}
		wantNotFound := protocol.CodeInvalidParams
		if era == protocol.EraLegacy {
			wantNotFound = protocol.CodeResourceNotFound
		}
		if _, err := c.ReadResource(ctx, "kit://items/missing"); !isCode(err, wantNotFound) {
			t.Fatalf("missing resource: %v", err)
		}
		p, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"})
		if err != nil || p.Text() != "Hello, Ada" {
			t.Fatalf("prompt = %+v, %v", p, err)
		}
		comp, err := c.Complete(ctx, protocol.ResourceRef("kit://items/{id}"), "id", "ap", nil)
		if err != nil || !slices.Equal(comp.Values, []string{"apple", "apricot"}) {
			t.Fatalf("complete = %+v, %v", comp, err)
		}
		raw, err := c.Request(ctx, "tools/list", nil)
		if err != nil || len(raw) == 0 {
			t.Fatalf("raw request = %s, %v", raw, err)
		}
		if _, err := c.Request(ctx, "no/such/method", nil); !isCode(err, protocol.CodeMethodNotFound) {
			t.Fatalf("unknown method: %v", err)
		}
	})
}

func TestProgressAndLogs(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		var mu sync.Mutex
		var logs []protocol.Notification
		opts = append(opts, client.LogLevel(protocol.LevelDebug), client.OnNotification(func(n protocol.Notification) {
			mu.Lock()
			logs = append(logs, n)
			mu.Unlock()
		}))
		c := connect(t, tr, srv, opts...)
		var progress []client.Progress
		ctx := client.WithProgress(t.Context(), func(p client.Progress) { progress = append(progress, p) })
		res, err := c.CallTool(ctx, "report", nil)
		if err != nil || res.Text() != "reported" {
			t.Fatalf("report = %v, %v", res, err)
		}
		if len(progress) != 2 || progress[1].Progress != 2 || progress[1].Message != "done" {
			t.Fatalf("progress = %+v", progress)
		}
		mu.Lock()
		defer mu.Unlock()
		found := false
		for _, n := range logs {
			found = found || n.Method == "notifications/message"
		}
		if !found {
			t.Fatalf("no log message among %+v", logs)
		}
		if era == protocol.EraLegacy {
			if err := c.SetLogLevel(t.Context(), protocol.LevelError); err != nil {
				t.Fatalf("set level: %v", err)
			}
			if err := c.SetLogLevel(t.Context(), "loud"); !isCode(err, protocol.CodeInvalidParams) {
				t.Fatalf("bad level: %v", err)
			}
		} else if err := c.SetLogLevel(t.Context(), protocol.LevelError); err == nil {
			t.Fatal("logging/setLevel in the modern era")
		}
	})
}

func askOptions(asked *[]string, mu *sync.Mutex) []client.Option {
	note := func(s string) {
		mu.Lock()
		*asked = append(*asked, s)
		mu.Unlock()
	}
	return []client.Option{
		client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			note("elicit " + r.Mode + " " + r.Message)
			return client.Accept(map[string]any{"name": "Ada"}), nil
		}),
		client.OnSample(func(_ context.Context, r *protocol.SamplingRequest) (*protocol.SamplingResult, error) {
			note("sample")
			return &protocol.SamplingResult{Content: protocol.Text("model says hi"), Model: "m"}, nil
		}),
		client.Roots(protocol.Root{URI: "file:///work", Name: "work"}),
	}
}

func TestAnsweringTheServer(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		var mu sync.Mutex
		var asked []string
		c := connect(t, tr, srv, append(opts, askOptions(&asked, &mu)...)...)
		res, err := c.CallTool(t.Context(), "ask", nil)
		if err != nil || res.Text() != "accept Ada / model says hi / file:///work" {
			t.Fatalf("ask = %v, %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(asked, "elicit form Your name?") || !slices.Contains(asked, "sample") {
			t.Fatalf("asked = %v", asked)
		}
	})
}

func TestWithoutHandlersTheServerCannotAsk(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		_, err := c.CallTool(t.Context(), "ask", nil)
		if err == nil {
			t.Fatal("a client without handlers answered")
		}
		if era == protocol.EraModern && !isCode(err, protocol.CodeMissingRequiredClientCapability) {
			t.Fatalf("modern: %v", err)
		}
	})
}

func TestCancellationThroughTheContext(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, k := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-k.Started
			cancel()
		}()
		if _, err := c.CallTool(ctx, "slow", nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: %v", err)
		}
		if err := <-k.Stopped; !errors.Is(err, context.Canceled) {
			t.Fatalf("the tool's context: %v", err)
		}
		// The client goes on working.
		if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "after"}); err != nil || res.Text() != "after" {
			t.Fatalf("after cancel = %v, %v", res, err)
		}
	})
}

func TestScopesAsErrors(t *testing.T) {
	srv, _ := newKitServer(t)
	c, err := client.Connect(t.Context(), memory.Transport(srv, memory.AsIdentity(&protocol.Identity{Subject: "u", FromToken: true, Scopes: []string{"read"}})))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(t.Context(), "admin", nil)
	var se *protocol.InsufficientScopeError
	if !errors.As(err, &se) || !slices.Contains(se.Scopes, "admin") {
		t.Fatalf("admin = %v", err)
	}
}

func TestClosedClient(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		if err := c.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if _, err := c.ListTools(t.Context()); !errors.Is(err, client.ErrClosed) {
			t.Fatalf("after close: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("second close: %v", err)
		}
	})
}
