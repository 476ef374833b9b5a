package proxy_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// A stdio server that asks for the roots on its own (as
// @modelcontextprotocol/server-everything does a moment after the
// handshake, and again after each restart) while one caller's call is in
// flight is refused: the roots are the session's, shared by every caller,
// so that caller is not asked. A sampling question in the same call still
// reaches its caller.
func TestProxyAsksNoCallerForAStdioSessionsRoots(t *testing.T) {
	t.Parallel()
	up, tr := newStdioServer(t)
	remote, err := client.Connect(t.Context(), tr, client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := proxy.New(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	note := func(s string) {
		mu.Lock()
		asked = append(asked, s)
		mu.Unlock()
	}
	caller, err := client.Connect(t.Context(), memory.Transport(p), client.ProtocolVersion(protocol.LegacyVersion),
		client.OnRoots(func(context.Context) ([]sake.Root, error) {
			note("roots")
			return []sake.Root{{URI: "file:///home/caller/secret", Name: "caller's"}}, nil
		}),
		client.OnSample(func(context.Context, *sake.SamplingRequest) (*sake.SamplingResult, error) {
			note("sample")
			return &sake.SamplingResult{Content: sake.Text("hi"), Model: "m"}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	done := make(chan *protocol.ToolResult, 1)
	go func() {
		res, err := caller.CallTool(t.Context(), "work", nil)
		if err != nil {
			t.Errorf("work = %v", err)
		}
		done <- res
	}()
	var id []byte
	select {
	case id = <-up.calls:
	case <-time.After(waitFor):
		t.Fatal("the call did not reach the server")
	}
	up.write(`{"jsonrpc":"2.0","id":"startup-roots","method":"roots/list"}`)
	select {
	case answer := <-up.answers:
		if !strings.Contains(answer, `"id":"startup-roots"`) || !strings.Contains(answer, `"error"`) || strings.Contains(answer, "secret") {
			t.Errorf("the server's roots/list was answered %s, want a refusal", answer)
		}
	case <-time.After(waitFor):
		t.Fatal("the server's roots/list was never answered")
	}
	up.write(`{"jsonrpc":"2.0","id":"in-call","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`)
	select {
	case answer := <-up.answers:
		if !strings.Contains(answer, `"id":"in-call"`) || !strings.Contains(answer, `"model":"m"`) {
			t.Errorf("the call's sampling question was answered %s", answer)
		}
	case <-time.After(waitFor):
		t.Fatal("the call's sampling question was never answered")
	}
	up.finish(id, "done")
	select {
	case res := <-done:
		if res == nil || res.Text() != "done" {
			t.Errorf("work = %v", res)
		}
	case <-time.After(waitFor):
		t.Fatal("the call did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, ",") != "sample" {
		t.Errorf("the caller was asked %v, want only the sampling question of its call", asked)
	}
}
