package transport_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/stdio"
	"github.com/sakemcp/sake-go/sake/transport"
)

// lines is a line transport's stream that takes responses later: a call
// a proxy forwards to a stdio server is answered on the goroutine that
// reads the server's answer, once Handle has returned.
type lines struct {
	mu      sync.Mutex
	written []string
	later   sync.WaitGroup // the responses still to come
}

func (l *lines) Send(msg []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written = append(l.written, string(msg))
}

func (l *lines) DeferReply() (respond func(body []byte, afterBurst func(func()) bool)) {
	l.later.Add(1)
	return func(body []byte, _ func(func()) bool) {
		if body != nil { // nil: the call was cancelled, nothing to write
			l.Send(body)
		}
		l.later.Done()
	}
}

// A transport whose stream is a transport.ReplyDeferrer lets a proxy in
// front of a stdio server forward a tools/call without holding a
// goroutine: Handle returns a Reply without a Body, and the response
// comes through DeferReply's respond function.
func ExampleReplyDeferrer() {
	// The remote: a server over stdio on a pair of pipes.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = stdio.Serve(context.Background(), sake.MustNew(hello{}), inR, outW)
		outW.Close()
	}()
	remote, err := client.Connect(context.Background(), client.Stream(outR, inW))
	if err != nil {
		panic(err)
	}
	defer remote.Close()
	srv, err := proxy.New(context.Background(), remote)
	if err != nil {
		panic(err)
	}

	out := &lines{}
	conn := transport.Connect(srv, "lines", nil, out)
	defer conn.Close()
	input := bufio.NewScanner(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello"}}
`))
	for input.Scan() {
		m := conn.Decode(append([]byte(nil), input.Bytes()...))
		r := m.Handle(context.Background())
		if r.Body != nil && !r.Cancelled {
			out.Send(r.Body)
		} else if m.Method() == "tools/call" {
			fmt.Println("tools/call: no body from Handle")
		}
	}
	out.later.Wait()
	conn.EndInput()
	fmt.Println(out.written[len(out.written)-1])
	// Output:
	// tools/call: no body from Handle
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}
}
