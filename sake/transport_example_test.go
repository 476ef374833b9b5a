package sake_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

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
