package sake_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

type hello struct{}

func (hello) Hello(ctx *sake.Context) (string, error) { return "hello", nil }

// A transport over a connection hands every message it reads to the
// server's Conn and writes back what comes out; the Message says whether it
// may run beside others.
func ExampleServer_Connect() {
	srv := sake.MustNew(hello{}, sake.WithoutServerInfoMeta())
	out := sake.StreamFunc(func(msg []byte) { fmt.Printf("sent: %s\n", msg) })
	conn := srv.Connect("example", nil, out)
	defer conn.Close()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello"}}`,
	} {
		m := conn.Decode([]byte(line))
		r := m.Handle(context.Background()) // a real transport runs Concurrent messages on a worker
		fmt.Println(m.Kind() == protocol.KindRequest, m.Concurrent(), m.Era(), r.Body != nil)
	}
	fmt.Println(conn.Session() != nil)
	// Output:
	// true false legacy true
	// false false legacy false
	// true true legacy true
	// true
}
