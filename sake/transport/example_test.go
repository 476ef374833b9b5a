package transport_test

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

type hello struct{}

func (hello) Hello(ctx *sake.Context) (string, error) { return "hello", nil }

// A line-based transport: it hands every line it reads to the server's
// Conn and writes back what comes out. The Message says whether it may
// run beside others; this one runs everything in order, which is always
// allowed.
func ExampleConnect() {
	srv := sake.MustNew(hello{}, sake.WithoutServerInfoMeta())
	var wire []string // what the transport writes back, one line each
	write := func(msg []byte) { wire = append(wire, string(msg)) }
	conn := transport.Connect(srv, "lines", nil, transport.StreamFunc(write))
	defer conn.Close()

	input := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello"}}
`)
	lines := bufio.NewScanner(input)
	for lines.Scan() {
		m := conn.Decode(append([]byte(nil), lines.Bytes()...))
		fmt.Println(m.Method(), m.Kind() == protocol.KindRequest, m.Era(), m.Concurrent())
		if r := m.Handle(context.Background()); r.Body != nil && !r.Cancelled {
			write(r.Body)
		}
	}
	conn.EndInput()
	fmt.Println(len(wire), "lines written, the last:", wire[len(wire)-1])
	fmt.Println("session open:", conn.Session() != nil)
	// Output:
	// initialize true legacy false
	// notifications/initialized false legacy false
	// tools/call true legacy true
	// 2 lines written, the last: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}
	// session open: true
}
