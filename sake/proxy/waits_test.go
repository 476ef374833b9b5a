package proxy_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// awaitingStream is a transport's stream that counts the requests that
// said they wait for something outside the server.
type awaitingStream struct{ waits atomic.Int64 }

func (s *awaitingStream) Send([]byte)     {}
func (s *awaitingStream) AwaitingAnswer() { s.waits.Add(1) }

// TestProxyCallSaysItWaitsOutside: a forwarded call tells the caller's
// transport that it waits for the remote, so that a transport reading
// requests on the goroutine that runs them (stdio) reads on meanwhile.
func TestProxyCallSaysItWaitsOutside(t *testing.T) {
	t.Parallel()
	remoteSrv := sake.MustNew(nil, sake.Name("remote", "1.0.0"))
	if err := remoteSrv.AddTool(sake.NewTool("echo", func(*sake.Context) (string, error) { return "echoed", nil })); err != nil {
		t.Fatal(err)
	}
	remote, err := client.Connect(t.Context(), memory.Transport(remoteSrv))
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	p, err := proxy.New(t.Context(), remote)
	if err != nil {
		t.Fatal(err)
	}
	stream := &awaitingStream{}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
	reply := p.Handle(context.Background(), []byte(msg), &sake.Inbound{Stream: stream})
	if !strings.Contains(string(reply.Body), "echoed") {
		t.Fatalf("the call = %s", reply.Body)
	}
	if n := stream.waits.Load(); n != 1 {
		t.Errorf("the forwarded call told its transport it waits %d times; want 1", n)
	}
}

// A proxy mounted under a namespace names the remote's resources in its
// results as the parent serves them.
func ExampleURINamespace() {
	ctx := context.Background()
	remote, err := client.Connect(ctx, client.HTTP("https://notes.example.com/mcp", nil))
	if err != nil {
		return
	}
	defer remote.Close()
	notes, err := proxy.New(ctx, remote, proxy.URINamespace("notes"))
	if err != nil {
		return
	}
	parent := sake.MustNew(nil)
	_ = parent.Mount("notes", notes) // a resource_link to memo://1 reads notes+memo://1
}

// TestProxyAsksProgressOnlyForACallerWhoDoes: the remote is asked for
// progress only when the proxy's caller asked for it.
func TestProxyAsksProgressOnlyForACallerWhoDoes(t *testing.T) {
	t.Parallel()
	remoteSrv := sake.MustNew(nil, sake.Name("remote", "1.0.0"))
	if err := remoteSrv.AddTool(sake.NewTool("echo", func(*sake.Context) (string, error) { return "echoed", nil })); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []string
	remote, err := client.Connect(t.Context(), memory.Transport(remoteSrv), client.OnMessage(func(sent bool, msg []byte) {
		if sent && strings.Contains(string(msg), `"tools/call"`) {
			mu.Lock()
			calls = append(calls, string(msg))
			mu.Unlock()
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	p, err := proxy.New(t.Context(), remote)
	if err != nil {
		t.Fatal(err)
	}
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}`
	for _, extra := range []string{"", `,"progressToken":"tok"`} {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{` + meta + extra + `}}}`
		if reply := p.Handle(context.Background(), []byte(msg), nil); !strings.Contains(string(reply.Body), "echoed") {
			t.Fatalf("the call = %s", reply.Body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || strings.Contains(calls[0], "progressToken") || !strings.Contains(calls[1], "progressToken") {
		t.Errorf("the remote was sent %q; want a progress token in the second call only", calls)
	}
}
