package interop

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// What the Go SDK's conformance everything-server returns, from its source
// (conformance/everything-server/main.go of go-sdk v1.8.0).
const (
	gosdkImage = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	gosdkAudio = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
	gosdkWatch = "test://watched-resource"
)

var gosdkTools = []string{
	"json_schema_2020_12_tool", "test_audio_content", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "test_embedded_resource", "test_error_handling", "test_image_content",
	"test_input_required_result_capabilities", "test_input_required_result_elicitation",
	"test_input_required_result_list_roots", "test_input_required_result_multi_round",
	"test_input_required_result_multiple_inputs", "test_input_required_result_request_state",
	"test_input_required_result_sampling", "test_input_required_result_tampered_state",
	"test_logging_tool", "test_missing_capability", "test_multiple_content_types", "test_reconnection",
	"test_sampling", "test_simple_text", "test_streaming_elicitation", "test_tool_with_logging",
	"test_tool_with_progress", "test_trigger_prompt_change", "test_trigger_tool_change", "test_x_mcp_header",
}

var gosdkPrompts = []string{
	"test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
	"test_prompt_with_image", "test_simple_prompt",
}

var (
	gosdkOnce sync.Once
	gosdkBin  string
	gosdkErr  error
)

// gosdkServer returns the path of the Go SDK's everything-server, built
// once per test run from the module cache (or SAKE_GOSDK_SERVER, a binary
// scripts/interop.sh built).
func gosdkServer(t testing.TB) string {
	t.Helper()
	gosdkOnce.Do(func() {
		if p := os.Getenv("SAKE_GOSDK_SERVER"); p != "" {
			gosdkBin = p
			return
		}
		dir, err := os.MkdirTemp("", "sake-interop-")
		if err != nil {
			gosdkErr = err
			return
		}
		gosdkBin = filepath.Join(dir, "everything-server")
		out, err := exec.Command("go", "build", "-o", gosdkBin,
			"github.com/modelcontextprotocol/go-sdk/conformance/everything-server").CombinedOutput()
		if err != nil {
			gosdkErr = errors.New("building the Go SDK's everything-server: " + err.Error() + ": " + string(out))
		}
	})
	if gosdkErr != nil {
		t.Fatal(gosdkErr)
	}
	return gosdkBin
}

// gosdkHTTP starts the server on Streamable HTTP and returns its URL.
func gosdkHTTP(t *testing.T, stateless bool) string {
	addr := freeAddr(t)
	p := start(t, exec.Command(gosdkServer(t), "-http", addr, "-stateless="+map[bool]string{true: "true", false: "false"}[stateless]))
	if err := p.waitListening(testCtx(t), addr); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/"
}

// interopEnv says what a check runs against.
type interopEnv struct {
	transport string // stdio, http-stateless, http-stateful
	version   string // the revision the client settled on
	pin       string // the ProtocolVersion option, "" to negotiate
	mk        func() client.Transport
}

// connect opens another client on the same server, in the same era.
func (e interopEnv) connect(t *testing.T, opts ...client.Option) *client.Client {
	if e.pin != "" {
		opts = append(opts, client.ProtocolVersion(e.pin))
	}
	return connect(t, e.mk(), opts...)
}

func (e interopEnv) modern() bool { return e.version == protocol.ModernVersion }

// interopHandlers are the client's answers to the server's questions,
// chosen so that every tool's result says which answer it got.
func interopHandlers() []client.Option {
	return []client.Option{
		client.OnElicit(func(_ context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			switch req.Message {
			case "What is your name?", "Step 1: What is your name?":
				return client.Accept(map[string]any{"name": "Ada"}), nil
			case "Step 2: What is your favorite color?":
				return client.Accept(map[string]any{"color": "green"}), nil
			case "Please confirm":
				return client.Accept(map[string]any{"ok": true}), nil
			case "Please provide context for the prompt":
				return client.Accept(map[string]any{"context": "ctx-1"}), nil
			case "Test defaults for primitives":
				return client.Accept(req.Defaults()), nil
			case "Test enum schemas":
				return client.Accept(map[string]any{"untitledSingle": "option2", "titledSingle": "value1",
					"legacyEnum": "opt3", "untitledMulti": []string{"option1", "option3"}, "titledMulti": []string{"value2"}}), nil
			case "decline me":
				return client.Decline(), nil
			}
			return client.Accept(map[string]any{"username": "ada"}), nil
		}),
		client.OnSample(func(_ context.Context, req *sake.SamplingRequest) (*sake.SamplingResult, error) {
			var prompt string
			if len(req.Messages) > 0 {
				if tc, ok := req.Messages[0].Content.(*sake.TextContent); ok {
					prompt = tc.Text
				}
			}
			return &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text("reply to: " + prompt), Model: "test-model"}, nil
		}),
		client.Roots(sake.Root{URI: "file:///work/a", Name: "a"}, sake.Root{URI: "file:///work/b", Name: "b"}),
	}
}

// notes collects a client's notifications for a test to wait on.
type notes struct {
	mu   sync.Mutex
	list []protocol.Notification
	ch   chan struct{}
}

func newNotes() *notes { return &notes{ch: make(chan struct{}, 1)} }

func (n *notes) add(x protocol.Notification) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
	select {
	case n.ch <- struct{}{}:
	default:
	}
}

// wait returns the first notification that satisfies ok, waiting for it
// until ctx ends.
func (n *notes) wait(ctx context.Context, ok func(protocol.Notification) bool) (protocol.Notification, error) {
	for {
		n.mu.Lock()
		for _, x := range n.list {
			if ok(x) {
				n.mu.Unlock()
				return x, nil
			}
		}
		n.mu.Unlock()
		select {
		case <-n.ch:
		case <-ctx.Done():
			return protocol.Notification{}, ctx.Err()
		}
	}
}

func (n *notes) all(ok func(protocol.Notification) bool) []protocol.Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []protocol.Notification
	for _, x := range n.list {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

func method(m string) func(protocol.Notification) bool {
	return func(n protocol.Notification) bool { return n.Method == m }
}

// TestGoSDK runs the client against the Go SDK's conformance
// everything-server over stdio and Streamable HTTP (stateless, its
// default, and with sessions), negotiated (2026-07-28) and pinned to each
// handshake revision.
func TestGoSDK(t *testing.T) {
	bin := gosdkServer(t)
	transports := []struct {
		name string
		make func(t *testing.T) func() client.Transport
	}{
		{"stdio", func(*testing.T) func() client.Transport {
			return func() client.Transport { return client.Command(exec.Command(bin)) }
		}},
		{"http-stateless", func(t *testing.T) func() client.Transport {
			url := gosdkHTTP(t, true)
			return func() client.Transport { return client.HTTP(url, nil) }
		}},
		{"http-stateful", func(t *testing.T) func() client.Transport {
			url := gosdkHTTP(t, false)
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
					runGoSDK(t, tr.name, version, mk)
				})
			}
		})
	}
}

func runGoSDK(t *testing.T, transport, pin string, mk func() client.Transport) {
	n := newNotes()
	opts := append(interopHandlers(), client.OnNotification(n.add), client.LogLevel(sake.LevelInfo))
	if pin != "" {
		opts = append(opts, client.ProtocolVersion(pin))
	}
	c := connect(t, mk(), opts...)
	info := c.Info()
	env := interopEnv{transport: transport, version: info.ProtocolVersion, pin: pin, mk: mk}
	want := pin
	switch {
	case pin == "" && transport == "http-stateful":
		// With sessions the server lists only the handshake revisions in
		// server/discover: negotiation settles on the newest of them.
		want = legacyRevisions[0]
	case pin == "":
		want = protocol.ModernVersion // the server offers 2026-07-28: negotiation must find it
	}
	if info.ProtocolVersion != want {
		t.Fatalf("protocol version = %q, want %q", info.ProtocolVersion, want)
	}
	if info.Server.Name != "mcp-conformance-test-server" || info.Server.Version != "1.0.0" {
		t.Errorf("server = %+v, want mcp-conformance-test-server 1.0.0", info.Server)
	}
	for _, capability := range []string{"tools", "resources", "prompts", "completions", "logging"} {
		if !info.HasCapability(capability) {
			t.Errorf("the server's capabilities %s lack %s", info.Capabilities, capability)
		}
	}
	for _, check := range gosdkChecks {
		t.Run(check.name, func(t *testing.T) {
			if check.skip != nil {
				if reason := check.skip(env); reason != "" {
					t.Skip(reason)
				}
			}
			check.run(t, testCtx(t), c, env, n)
		})
	}
}

type gosdkCheck struct {
	name string
	skip func(interopEnv) string
	run  func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, n *notes)
}

// statelessLegacy reports the handshake era over stateless HTTP: go-sdk
// keeps no session there, so it cannot send the client requests and
// knows none of the capabilities the handshake declared.
func statelessLegacy(e interopEnv) bool { return e.transport == "http-stateless" && !e.modern() }

// wantToolError calls a tool and checks that it failed with a tool error
// whose text contains want.
func wantToolError(t *testing.T, ctx context.Context, c *client.Client, tool string, args any, want string) {
	t.Helper()
	res, err := c.CallTool(ctx, tool, args)
	var te *sake.ToolError
	if !errors.As(err, &te) || res == nil || !strings.Contains(res.Text(), want) {
		t.Fatalf("%s: %v, %v; want a tool error containing %q", tool, res, err, want)
	}
}

// wantText calls a tool and checks the text of its result.
func wantText(t *testing.T, ctx context.Context, c *client.Client, tool string, args any, want string) *sake.ToolResult {
	t.Helper()
	res, err := c.CallTool(ctx, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if got := res.Text(); got != want {
		t.Fatalf("%s = %q, want %q", tool, got, want)
	}
	return res
}

func wantRPCError(t *testing.T, err error, code int, contains string) {
	t.Helper()
	var rpc *sake.Error
	if !errors.As(err, &rpc) {
		t.Fatalf("err = %v (%T), want a JSON-RPC error %d", err, err, code)
	}
	if rpc.Code != code || !strings.Contains(rpc.Message, contains) {
		t.Fatalf("error = %d %q, want %d containing %q", rpc.Code, rpc.Message, code, contains)
	}
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var gosdkChecks = []gosdkCheck{
	{name: "ping", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}},
	{name: "list-tools", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		var schema string
		for _, tool := range tools {
			if !strings.HasPrefix(tool.Name, "__transient") { // added by the list-change tools
				names = append(names, tool.Name)
			}
			if tool.Name == "json_schema_2020_12_tool" {
				schema = string(tool.InputSchema)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, gosdkTools) {
			t.Fatalf("tools = %v, want %v", names, gosdkTools)
		}
		for _, kw := range []string{`"$defs"`, `"$anchor"`, `"allOf"`, `"if"`, `"additionalProperties":false`} {
			if !strings.Contains(strings.ReplaceAll(schema, " ", ""), kw) {
				t.Errorf("json_schema_2020_12_tool's schema lost %s: %s", kw, schema)
			}
		}
		page, err := c.ListToolsPage(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != len(tools) || page.NextCursor != "" {
			t.Fatalf("one page of %d tools with cursor %q, want all %d and no cursor (page size 1000)", len(page.Items), page.NextCursor, len(tools))
		}
		_, err = c.ListToolsPage(ctx, "not-a-cursor")
		wantRPCError(t, err, sake.CodeInvalidParams, "")
	}},
	{name: "content-types", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		wantText(t, ctx, c, "test_simple_text", nil, "This is a simple text response for testing.")
		res, err := c.CallTool(ctx, "test_image_content", nil)
		if err != nil {
			t.Fatal(err)
		}
		if img, ok := res.Content[0].(*sake.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != string(mustDecode(t, gosdkImage)) {
			t.Fatalf("image = %#v", res.Content[0])
		}
		res, err = c.CallTool(ctx, "test_audio_content", nil)
		if err != nil {
			t.Fatal(err)
		}
		if a, ok := res.Content[0].(*sake.AudioContent); !ok || a.MIMEType != "audio/wav" || string(a.Data) != string(mustDecode(t, gosdkAudio)) {
			t.Fatalf("audio = %#v", res.Content[0])
		}
		res, err = c.CallTool(ctx, "test_embedded_resource", nil)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := res.Content[0].(*sake.EmbeddedResource); !ok || e.Resource.URI != "test://embedded-resource" || e.Resource.Text != "This is an embedded resource" {
			t.Fatalf("embedded = %#v", res.Content[0])
		}
		res, err = c.CallTool(ctx, "test_multiple_content_types", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 3 || res.Content[0].ContentType() != "text" || res.Content[1].ContentType() != "image" || res.Content[2].ContentType() != "resource" {
			t.Fatalf("content = %v", res.Content)
		}
		if e := res.Content[2].(*sake.EmbeddedResource); e.Resource.URI != "test://embedded-in-multiple" {
			t.Fatalf("embedded = %+v", e.Resource)
		}
	}},
	{name: "tool-error", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		res, err := c.CallTool(ctx, "test_error_handling", nil)
		var te *sake.ToolError
		if !errors.As(err, &te) || res == nil || !res.IsError {
			t.Fatalf("err = %v, res = %v: want a tool error", err, res)
		}
		if got := res.Text(); got != "this tool intentionally returns an error for testing" {
			t.Fatalf("tool error text = %q", got)
		}
	}},
	{name: "unknown-tool", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		_, err := c.CallTool(ctx, "no_such_tool", nil)
		wantRPCError(t, err, sake.CodeInvalidParams, `unknown tool "no_such_tool"`)
	}},
	{name: "invalid-arguments", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		// go-sdk checks arguments against the input schema and answers
		// with a tool error the model can read (SEP-1303).
		wantToolError(t, ctx, c, "test_x_mcp_header", map[string]any{"level": "high"},
			`validating /properties/level: type: high has type "string", want "integer"`)
		wantToolError(t, ctx, c, "test_sampling", map[string]any{"prompt": "p", "extra": 1},
			`unexpected additional properties ["extra"]`)
	}},
	{name: "x-mcp-header", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		wantText(t, ctx, c, "test_x_mcp_header", map[string]any{"region": "eu-west", "level": 3}, "region=eu-west")
	}},
	{name: "json-schema-2020-12", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		res, err := c.CallTool(ctx, "json_schema_2020_12_tool", map[string]any{"name": "Ada", "email": "ada@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(res.Text(), " ", "")
		if !strings.HasPrefix(got, "JSONSchema2020-12toolcalledwith:") || !strings.Contains(got, `"email":"ada@example.com"`) || !strings.Contains(got, `"name":"Ada"`) {
			t.Fatalf("result = %q", res.Text())
		}
	}},
	{name: "progress", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		var mu sync.Mutex
		var got []client.Progress
		pctx := client.WithProgress(ctx, func(p client.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		})
		res, err := c.CallTool(pctx, "test_tool_with_progress", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() == "" || res.Text() == "<nil>" {
			t.Fatalf("the tool answers with the progress token it got; got %q", res.Text())
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 3 {
			t.Fatalf("progress = %+v, want 3 notifications", got)
		}
		for i, want := range []float64{0, 50, 100} {
			if got[i].Progress != want || got[i].Total == nil || *got[i].Total != 100 {
				t.Errorf("progress %d = %+v, want %v of 100", i, got[i], want)
			}
		}
		if got[1].Message != "Completed step 50 of 100" {
			t.Errorf("progress message = %q", got[1].Message)
		}
	}},
	{name: "logging", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, n *notes) {
		wantText(t, ctx, c, "test_tool_with_logging", nil, "Tool with logging executed successfully")
		var msgs []string
		for _, x := range n.all(method("notifications/message")) {
			msgs = append(msgs, string(x.Params))
		}
		for _, want := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, want) && strings.Contains(m, `"info"`) }) {
				t.Errorf("no info log %q among %v", want, msgs)
			}
		}
		if env.modern() {
			// No logging/setLevel at 2026-07-28: the level travels on every
			// request's _meta, so a client asking for errors only gets none
			// of the tool's info messages.
			if err := c.SetLogLevel(ctx, sake.LevelError); err == nil {
				t.Fatal("SetLogLevel in the 2026-07-28 era did not refuse")
			}
			quiet := newNotes()
			c2 := env.connect(t, client.OnNotification(quiet.add), client.LogLevel(sake.LevelError))
			wantText(t, ctx, c2, "test_tool_with_logging", nil, "Tool with logging executed successfully")
			if got := quiet.all(method("notifications/message")); len(got) != 0 {
				t.Fatalf("log messages below the level asked for: %v", got)
			}
			return
		}
		if err := c.SetLogLevel(ctx, sake.LevelError); err != nil {
			t.Fatal(err)
		}
		defer c.SetLogLevel(ctx, sake.LevelInfo)
		before := len(n.all(method("notifications/message")))
		wantText(t, ctx, c, "test_logging_tool", nil, "Log attempted; framework gates on _meta.../logLevel.")
		after := len(n.all(method("notifications/message")))
		if env.transport == "http-stateless" {
			// go-sdk's stateless mode starts every request afresh at level
			// info: logging/setLevel is accepted and forgotten.
			if after != before+1 {
				t.Fatalf("%d messages, want the one info message stateless go-sdk always sends", after-before)
			}
			return
		}
		if after != before {
			t.Errorf("an info message arrived at level error")
		}
	}},
	{name: "sampling", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, _ *notes) {
		if statelessLegacy(env) {
			wantToolError(t, ctx, c, "test_sampling", map[string]any{"prompt": "p1"}, "stateless servers cannot make requests")
			return
		}
		if env.modern() {
			// Session.CreateMessage is the handshake era's request: a
			// 2026-07-28 call has no session to send it on.
			_, err := c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "p1"})
			if err == nil {
				t.Fatal("test_sampling worked at 2026-07-28, where the server has no channel for requests: update this test")
			}
			return
		}
		wantText(t, ctx, c, "test_sampling", map[string]any{"prompt": "p1"}, "LLM response: reply to: p1")
	}},
	{name: "elicitation", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, _ *notes) {
		if statelessLegacy(env) {
			wantToolError(t, ctx, c, "test_elicitation", map[string]any{"message": "m"}, "client does not support elicitation")
			return
		}
		if env.modern() {
			_, err := c.CallTool(ctx, "test_elicitation", map[string]any{"message": "m"})
			if err == nil {
				t.Fatal("test_elicitation worked at 2026-07-28, where the server has no channel for requests: update this test")
			}
			return
		}
		wantText(t, ctx, c, "test_elicitation", map[string]any{"message": "m"}, "Elicitation result: action=accept, content=map[username:ada]")
		wantText(t, ctx, c, "test_elicitation", map[string]any{"message": "decline me"}, "Elicitation result: action=decline, content=map[]")
		wantText(t, ctx, c, "test_elicitation_sep1034_defaults", nil,
			"Elicitation result: action=accept, content=map[age:30 name:John Doe score:95.5 status:active verified:true]")
		// go-sdk v1.8.0 refuses its own SEP-1330 schema before sending it:
		// its check wants "enum" in the items of titledMulti, whose titled
		// options the 2025-11-25 schema puts in "anyOf".
		res, err := c.CallTool(ctx, "test_elicitation_sep1330_enums", nil)
		var te *sake.ToolError
		if !errors.As(err, &te) || !strings.Contains(res.Text(), `elicit schema property "titledMulti" items must specify enum for untitled enums`) {
			t.Fatalf("test_elicitation_sep1330_enums: %v, %v: the server's known refusal changed, check the answer instead", res, err)
		}
	}},
	{name: "input-required", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, _ *notes) {
		if statelessLegacy(env) {
			// go-sdk fails the call with a JSON-RPC error whose code is 0
			// (a plain Go error of its middleware).
			_, err := c.CallTool(ctx, "test_input_required_result_elicitation", nil)
			wantRPCError(t, err, 0, `fulfilling input request "user_name": client does not support elicitation`)
			return
		}
		wantText(t, ctx, c, "test_input_required_result_elicitation", nil, "Hello, Ada!")
		wantText(t, ctx, c, "test_input_required_result_sampling", nil, "Sampling response: reply to: What is the capital of France?")
		wantText(t, ctx, c, "test_input_required_result_list_roots", nil, "Client exposed 2 root(s): file:///work/a, file:///work/b")
		wantText(t, ctx, c, "test_input_required_result_request_state", nil, "state-ok: requestState received and confirmation accepted")
		wantText(t, ctx, c, "test_input_required_result_tampered_state", nil, "state-ok: requestState received and confirmation accepted")
		wantText(t, ctx, c, "test_input_required_result_multiple_inputs", nil, "reply to: Generate a greeting Ada — 2 root(s) visible")
		if env.modern() {
			wantText(t, ctx, c, "test_input_required_result_multi_round", nil, "Multi-round complete: Ada likes green")
		} else {
			// go-sdk answers a handshake-era client's input_required by
			// asking the questions itself and running the tool once more;
			// the second round's questions then reach the client as a
			// result without content.
			res, err := c.CallTool(ctx, "test_input_required_result_multi_round", nil)
			if err != nil || len(res.Content) != 0 {
				t.Fatalf("multi-round at %s = %v, %v: go-sdk's one-round emulation changed, expect the full answer", env.version, res, err)
			}
		}
		wantText(t, ctx, c, "test_input_required_result_capabilities", nil, "Capability-aware input requests fulfilled")
		res, err := c.GetPrompt(ctx, "test_input_required_result_prompt", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != "Context: ctx-1" {
			t.Fatalf("prompt = %q", res.Text())
		}
	}},
	{name: "missing-capability", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, _ *notes) {
		if statelessLegacy(env) {
			// Stateless go-sdk knows nothing of the handshake's
			// capabilities: every request looks like one from a client
			// that declared none.
			_, err := c.CallTool(ctx, "test_missing_capability", nil)
			wantRPCError(t, err, sake.CodeMissingRequiredClientCapability, "sampling capability required")
			return
		}
		wantText(t, ctx, c, "test_missing_capability", nil, "Client declared the sampling capability; tool executed.")
		// A client without a sampling handler declares no sampling.
		bare := env.connect(t)
		_, err := bare.CallTool(ctx, "test_missing_capability", nil)
		wantRPCError(t, err, sake.CodeMissingRequiredClientCapability, "sampling capability required")
	}},
	{name: "reconnection", run: func(t *testing.T, ctx context.Context, c *client.Client, env interopEnv, _ *notes) {
		if !env.modern() && env.transport != "stdio" {
			// The server closes the call's stream with "retry:" but no
			// event id, and it keeps no events (no EventStore), so the
			// result is lost: the client must say so, not hang.
			_, err := c.CallTool(ctx, "test_reconnection", nil)
			if err == nil || !strings.Contains(err.Error(), "ended without an answer") {
				t.Fatalf("test_reconnection over HTTP at %s: %v; the server's stream handling changed", env.version, err)
			}
			wantText(t, ctx, c, "test_simple_text", nil, "This is a simple text response for testing.")
			return
		}
		wantText(t, ctx, c, "test_reconnection", nil,
			"Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")
	}},
	{name: "resources", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		list, err := c.ListResources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range list {
			uris = append(uris, r.URI+" "+r.Name+" "+r.MIMEType)
		}
		slices.Sort(uris)
		want := []string{"test://static-binary static-binary image/png", "test://static-text static-text text/plain", "test://watched-resource watched-resource text/plain"}
		if !slices.Equal(uris, want) {
			t.Fatalf("resources = %v, want %v", uris, want)
		}
		templates, err := c.ListResourceTemplates(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(templates) != 1 || templates[0].URITemplate != "test://template/{id}/data" || templates[0].Name != "template" {
			t.Fatalf("templates = %+v", templates)
		}
		contents, err := c.ReadResource(ctx, "test://static-text")
		if err != nil {
			t.Fatal(err)
		}
		if len(contents) != 1 || contents[0].Text != "This is the content of the static text resource." || contents[0].MIMEType != "text/plain" {
			t.Fatalf("static-text = %+v", contents)
		}
		contents, err = c.ReadResource(ctx, "test://static-binary")
		if err != nil {
			t.Fatal(err)
		}
		if len(contents) != 1 || string(contents[0].Blob) != string(mustDecode(t, gosdkImage)) || contents[0].MIMEType != "image/png" {
			t.Fatalf("static-binary = %+v", contents)
		}
		contents, err = c.ReadResource(ctx, "test://template/42/data")
		if err != nil {
			t.Fatal(err)
		}
		if len(contents) != 1 || contents[0].Text != `{"id": "42", "templateTest": true, "data": "Data for ID: 42"}` || contents[0].URI != "test://template/42/data" {
			t.Fatalf("template = %+v", contents)
		}
		_, err = c.ReadResource(ctx, "test://no-such-resource")
		var rpc *sake.Error
		if !errors.As(err, &rpc) || (rpc.Code != sake.CodeResourceNotFound && rpc.Code != sake.CodeInvalidParams) {
			t.Fatalf("reading an unknown resource: %v, want -32002 or -32602", err)
		}
	}},
	{name: "subscribe", skip: func(e interopEnv) string {
		if statelessLegacy(e) {
			return "the handshake era over stateless HTTP has no session, so no notification can follow a subscription"
		}
		return ""
	}, run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		got := newNotes()
		sub, err := c.Listen(ctx, client.Filter{Resources: []string{gosdkWatch}, ToolsListChanged: true, PromptsListChanged: true}, got.add)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		// The server announces the watched resource every 3 seconds.
		x, err := got.wait(ctx, method("notifications/resources/updated"))
		if err != nil {
			t.Fatalf("no update of %s: %v", gosdkWatch, err)
		}
		if !strings.Contains(string(x.Params), gosdkWatch) {
			t.Fatalf("update = %s", x.Params)
		}
		wantText(t, ctx, c, "test_trigger_tool_change", nil, "tools_list_changed published")
		if _, err := got.wait(ctx, method("notifications/tools/list_changed")); err != nil {
			t.Fatalf("no tools/list_changed: %v", err)
		}
		wantText(t, ctx, c, "test_trigger_prompt_change", nil, "prompts_list_changed published")
		if _, err := got.wait(ctx, method("notifications/prompts/list_changed")); err != nil {
			t.Fatalf("no prompts/list_changed: %v", err)
		}
	}},
	{name: "prompts", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		list, err := c.ListPrompts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list {
			if !strings.HasPrefix(p.Name, "__transient") {
				names = append(names, p.Name)
			}
			if p.Name == "test_prompt_with_arguments" && (len(p.Arguments) != 2 || p.Arguments[0].Name != "arg1" || !p.Arguments[0].Required) {
				t.Errorf("arguments = %+v", p.Arguments)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, gosdkPrompts) {
			t.Fatalf("prompts = %v, want %v", names, gosdkPrompts)
		}
		res, err := c.GetPrompt(ctx, "test_simple_prompt", nil)
		if err != nil || res.Text() != "This is a simple prompt for testing." {
			t.Fatalf("simple prompt = %v, %v", res, err)
		}
		res, err = c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "x", "arg2": "y"})
		if err != nil || res.Text() != "Prompt with arguments: arg1='x', arg2='y'" || res.Description != "A prompt with arguments" {
			t.Fatalf("prompt with arguments = %+v, %v", res, err)
		}
		res, err = c.GetPrompt(ctx, "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://r"})
		if err != nil || len(res.Messages) != 2 {
			t.Fatalf("embedded prompt = %+v, %v", res, err)
		}
		if e, ok := res.Messages[0].Content.(*sake.EmbeddedResource); !ok || e.Resource.URI != "test://r" || e.Resource.Text != "Embedded resource content for testing." {
			t.Fatalf("embedded = %#v", res.Messages[0].Content)
		}
		res, err = c.GetPrompt(ctx, "test_prompt_with_image", nil)
		if err != nil || len(res.Messages) != 2 {
			t.Fatalf("image prompt = %+v, %v", res, err)
		}
		if img, ok := res.Messages[0].Content.(*sake.ImageContent); !ok || string(img.Data) != string(mustDecode(t, gosdkImage)) {
			t.Fatalf("image = %#v", res.Messages[0].Content)
		}
		_, err = c.GetPrompt(ctx, "no_such_prompt", nil)
		wantRPCError(t, err, sake.CodeInvalidParams, "")
	}},
	{name: "complete", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		comp, err := c.Complete(ctx, protocol.PromptRef("test_prompt_with_arguments"), "arg1", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		// The server acknowledges completion with no values.
		if len(comp.Values) != 0 || comp.HasMore {
			t.Fatalf("completion = %+v", comp)
		}
		comp, err = c.Complete(ctx, protocol.ResourceRef("test://template/{id}/data"), "id", "4", nil)
		if err != nil || len(comp.Values) != 0 {
			t.Fatalf("template completion = %+v, %v", comp, err)
		}
	}},
	{name: "cancel", run: func(t *testing.T, ctx context.Context, c *client.Client, _ interopEnv, _ *notes) {
		// The progress tool sleeps between its notifications: cancel after
		// the first and the call ends with the context's error.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		pctx := client.WithProgress(cctx, func(client.Progress) { cancel() })
		_, err := c.CallTool(pctx, "test_tool_with_progress", nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		// The client stays usable.
		wantText(t, ctx, c, "test_simple_text", nil, "This is a simple text response for testing.")
	}},
}
