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

// Handle answers one JSON-RPC message as a transport delivers it.
func ExampleServer_Handle() {
	srv, err := sake.New(Weather{}, sake.Name("weather", "1.0.0"))
	if err != nil {
		panic(err)
	}
	msg := protocol.AppendRequest(nil, []byte("1"), "tools/call", []byte(`{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
		"name":"forecast","arguments":{"city":"Lisbon","days":2}}`))
	reply := srv.Handle(context.Background(), msg, nil)
	fmt.Println(string(reply.Body))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Sunny in Lisbon for 2 days."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}
}
