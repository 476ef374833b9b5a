package interop

import (
	"context"
	"errors"
	"log/slog"
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

// standInEnv makes the test binary serve as the Python SDK 1.x stand-in
// (pyStandIn) on its standard input and output instead of running tests.
const standInEnv = "SAKE_INTEROP_PYSDK1_STANDIN"

func TestMain(m *testing.M) {
	if os.Getenv(standInEnv) == "1" {
		os.Exit(servePyStandIn(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// pyStandInCommand runs this test binary as the stand-in.
func pyStandInCommand(t testing.TB) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), standInEnv+"=1")
	return cmd
}

// TestPythonSDKStandIn runs the client against the stand-in for a
// Python SDK 1.x stdio server (see pyStandIn: PyPI cannot be reached
// here, the real server cannot be installed), negotiated and pinned to
// each revision it accepts.
func TestPythonSDKStandIn(t *testing.T) {
	for _, pin := range []string{"", "2025-06-18", "2025-03-26"} {
		name := pin
		if name == "" {
			name = "negotiated"
		}
		t.Run(name, func(t *testing.T) {
			n, logs := newNotes(), newNotes()
			opts := append(interopHandlers(), client.OnNotification(n.add), client.LogLevel(sake.LevelInfo),
				client.Logger(slog.New(records{logs})))
			if pin != "" {
				opts = append(opts, client.ProtocolVersion(pin))
			}
			c := connect(t, client.Command(pyStandInCommand(t)), opts...)
			ctx := testCtx(t)
			info := c.Info()
			want := pin
			if want == "" {
				want = "2025-06-18"
			}
			if info.Era != sake.EraLegacy || info.ProtocolVersion != want || info.HasCapability("logging") || !info.HasCapability("tools") {
				t.Fatalf("info = %+v, want %s without logging", info, want)
			}
			checkPyServer(t, ctx, c, n)
			// Everything the client sent is in the stand-in's standard
			// error by now, in order: logging/setLevel never was.
			if _, err := logs.wait(ctx, func(x protocol.Notification) bool {
				return strings.Contains(x.Method, "stand-in received prompts/get")
			}); err != nil {
				t.Fatal(err)
			}
			if got := logs.all(func(x protocol.Notification) bool {
				return strings.Contains(x.Method, "stand-in received logging/setLevel")
			}); len(got) > 0 {
				t.Errorf("the client sent logging/setLevel to a server without logging: %v", got)
			}
		})
	}
}

// checkPyServer calls what the stand-in serves, directly or through the
// proxy, and ends with a prompts/get.
func checkPyServer(t *testing.T, ctx context.Context, c *client.Client, n *notes) {
	t.Helper()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 6 {
		t.Fatalf("tools = %d, %v", len(tools), err)
	}
	wantText(t, ctx, c, "echo", map[string]string{"text": "hi"}, "hi")
	wantText(t, ctx, c, "ask_name", nil, "Hello, Ada")
	wantText(t, ctx, c, "draft", map[string]string{"topic": "tea"}, "draft: reply to: Write about tea")
	var mu sync.Mutex
	var progress []client.Progress
	pctx := client.WithProgress(ctx, func(p client.Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	wantText(t, pctx, c, "count", nil, "counted")
	mu.Lock()
	if len(progress) != 2 {
		t.Errorf("progress = %+v, want 2", progress)
	}
	mu.Unlock()
	wantToolError(t, ctx, c, "boom", nil, "it broke")
	if contents, err := c.ReadResource(ctx, "doc://readme"); err != nil || len(contents) != 1 || contents[0].Text != "read me" {
		t.Fatalf("read = %+v, %v", contents, err)
	}
	if contents, err := c.ReadResource(ctx, "doc://notes/7"); err != nil || len(contents) != 1 || contents[0].Text != "note 7" {
		t.Fatalf("template read = %+v, %v", contents, err)
	}
	if _, err := c.ReadResource(ctx, "doc://missing"); err == nil {
		t.Fatal("an unknown resource was read")
	}
	if n != nil {
		wantText(t, ctx, c, "log_steps", nil, "logged")
		if _, err := n.wait(ctx, func(x protocol.Notification) bool {
			return x.Method == "notifications/message" && strings.Contains(string(x.Params), "step one")
		}); err != nil {
			t.Fatalf("no log message: %v", err)
		}
	}
	p, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Lin"})
	if err != nil || p.Text() != "Hello, Lin" {
		t.Fatalf("prompt = %+v, %v", p, err)
	}
}

var (
	proxyOnce sync.Once
	proxyBin  string
	proxyErr  error
)

// proxyCommand builds examples/proxy once per test run.
func proxyCommand(t testing.TB) string {
	t.Helper()
	proxyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sake-interop-proxy-")
		if err != nil {
			proxyErr = err
			return
		}
		proxyBin = filepath.Join(dir, "proxy")
		out, err := exec.Command("go", "build", "-o", proxyBin, "github.com/sakemcp/sake-go/examples/proxy").CombinedOutput()
		if err != nil {
			proxyErr = errors.New("building examples/proxy: " + err.Error() + ": " + string(out))
		}
	})
	if proxyErr != nil {
		t.Fatal(proxyErr)
	}
	return proxyBin
}

// TestPythonSDKStandInBehindTheProxy runs examples/proxy in front of the
// stand-in for a Python SDK 1.x stdio server, and the client against the
// proxy in both eras: the proxy connects (it asks for log messages, which
// such a server has no logging/setLevel for) and passes the server's
// questions, which name no call over stdio, to the caller of the one call
// in flight.
func TestPythonSDKStandInBehindTheProxy(t *testing.T) {
	addr := freeAddr(t)
	standIn := pyStandInCommand(t)
	cmd := exec.Command(proxyCommand(t), "-http", addr, "--", standIn.Path)
	cmd.Env = standIn.Env
	p := start(t, cmd)
	ctx := testCtx(t)
	if err := p.waitLine(ctx, 0, "msg=proxying"); err != nil {
		t.Fatal(err)
	}
	if err := p.waitListening(ctx, addr); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	connected := slices.ContainsFunc(p.lines, func(l string) bool {
		return strings.Contains(l, "msg=connected") && strings.Contains(l, "version=2025-06-18")
	})
	p.mu.Unlock()
	if !connected {
		t.Error("the proxy did not say it connected to the server at 2025-06-18")
	}
	for _, pin := range []string{"", protocol.LegacyVersion} {
		name := pin
		if name == "" {
			name = "negotiated"
		}
		t.Run(name, func(t *testing.T) {
			opts := interopHandlers()
			if pin != "" {
				opts = append(opts, client.ProtocolVersion(pin))
			}
			c := connect(t, client.HTTP("http://"+addr+"/mcp", nil), opts...)
			mark := p.mark()
			checkPyServer(t, testCtx(t), c, nil)
			if err := p.waitLine(testCtx(t), mark, "stand-in received prompts/get"); err != nil {
				t.Fatal(err)
			}
		})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if strings.Contains(l, "stand-in received logging/setLevel") {
			t.Errorf("the proxy sent logging/setLevel to a server without logging: %s", l)
		}
	}
}
