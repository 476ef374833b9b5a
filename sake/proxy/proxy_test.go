package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

func TestProxy(t *testing.T) {
	t.Parallel()
	for _, remoteEra := range eras {
		for _, localEra := range eras {
			t.Run("remote "+remoteEra.Name+"/local "+localEra.Name, func(t *testing.T) {
				t.Parallel()
				remoteSrv, _ := newKitServer(t)
				_, rec, url := httpKitFor(t, remoteSrv)
				remote, err := client.Connect(t.Context(), client.HTTP(url, nil, client.BearerToken("proxy-credential")), append(remoteEra.Opts, client.ForwardQuestions())...)
				if err != nil {
					t.Fatal(err)
				}
				defer remote.Close()
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				proxySrv, err := proxy.New(ctx, remote, proxy.Prefix("up_"), proxy.FilterTools(func(ti protocol.ToolInfo) bool { return ti.Name != "admin" }))
				if err != nil {
					t.Fatal(err)
				}
				ph := plug.New(proxySrv)
				pts := httptest.NewServer(ph)
				defer func() { pts.Close(); ph.Close() }()
				var mu sync.Mutex
				var asked []string
				local, err := client.Connect(t.Context(), client.HTTP(pts.URL, nil, client.BearerToken("caller-secret")), append(localEra.Opts, askOptions(&asked, &mu)...)...)
				if err != nil {
					t.Fatal(err)
				}
				defer local.Close()

				tools, err := local.ListTools(t.Context())
				if err != nil || len(tools) != 10 || !slices.ContainsFunc(tools, func(ti protocol.ToolInfo) bool { return ti.Name == "up_echo" }) {
					t.Fatalf("tools = %d, %v", len(tools), err)
				}
				callKitTools(t, local)
				if res, err := local.CallTool(t.Context(), "up_ask", nil); err != nil || res.Text() != "accept Ada / model says hi / file:///work" {
					t.Fatalf("ask through the proxy = %v, %v", res, err)
				}
				mu.Lock()
				if !slices.Contains(asked, "elicit form Your name?") || !slices.Contains(asked, "sample") {
					t.Fatalf("the caller was asked %v", asked)
				}
				mu.Unlock()
				contents, err := local.ReadResource(t.Context(), "kit://items/9")
				if err != nil || contents[0].Text != "item 9" {
					t.Fatalf("template read = %+v, %v", contents, err)
				}
				if contents, err := local.ReadResource(t.Context(), "kit://readme"); err != nil || contents[0].Text != "read me" {
					t.Fatalf("read = %+v, %v", contents, err)
				}
				p, err := local.GetPrompt(t.Context(), "up_greet", map[string]string{"who": "Lin"})
				if err != nil || p.Text() != "Hello, Lin" {
					t.Fatalf("prompt = %+v, %v", p, err)
				}
				// The caller's token never reaches the remote server.
				for _, h := range rec.Headers() {
					if a := h.Get("Authorization"); a != "Bearer proxy-credential" {
						t.Errorf("the remote server saw Authorization %q", a)
					}
				}
				// A change of the remote list reaches the proxy's callers.
				changed := make(chan struct{}, 1)
				sub, err := local.Listen(t.Context(), client.Filter{ToolsListChanged: true}, func(n protocol.Notification) {
					select {
					case changed <- struct{}{}:
					default:
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				defer sub.Close()
				remoteSrv.RemoveTool("echo")
				<-changed
				tools, _ = local.ListTools(t.Context())
				for slices.ContainsFunc(tools, func(ti protocol.ToolInfo) bool { return ti.Name == "up_echo" }) {
					<-changed
					tools, _ = local.ListTools(t.Context())
				}
			})
		}
	}
}

// callKitTools calls the kit's echo, fail, refuse and report tools, and
// one it does not have, through local, a client of a proxy that prefixes
// them with up_, and fails t unless each ends as it does directly: the
// text echoed, the error result, the refusal, progress reported.
func callKitTools(t *testing.T, local *client.Client) {
	t.Helper()
	for i := range 3 {
		text := fmt.Sprint("through ", i)
		if res, err := local.CallTool(t.Context(), "up_echo", map[string]string{"text": text}); err != nil || res.Text() != text {
			t.Fatalf("echo = %v, %v", res, err)
		}
	}
	res, err := local.CallTool(t.Context(), "up_fail", nil)
	var te *sake.ToolError
	if !errors.As(err, &te) || res.Text() != "it went wrong" {
		t.Fatalf("fail = %v, %v", res, err)
	}
	if _, err := local.CallTool(t.Context(), "up_refuse", nil); !isCode(err, sake.CodeInvalidParams) {
		t.Fatalf("refuse = %v", err)
	}
	if _, err := local.CallTool(t.Context(), "up_nothing_here", nil); !isCode(err, sake.CodeInvalidParams) {
		t.Fatalf("unknown tool = %v", err)
	}
	var progress []client.Progress
	pctx := client.WithProgress(t.Context(), func(p client.Progress) { progress = append(progress, p) })
	if res, err := local.CallTool(pctx, "up_report", nil); err != nil || res.Text() != "reported" || len(progress) != 2 {
		t.Fatalf("report = %v, %v, progress %+v", res, err, progress)
	}
}
