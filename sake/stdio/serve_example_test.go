package stdio_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// Serve any reader and writer: here two requests from a strings.Reader,
// answered on os.Stdout. Serve returns once the input ends and the answers
// are written.
func ExampleServe() {
	srv := sake.MustNew(&Greeter{}, sake.Name("greeter", "1.0.0"), sake.WithoutServerInfoMeta())
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	in := strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` + meta + `}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope",` + meta + `}}` + "\n")
	if err := stdio.Serve(context.Background(), srv, in, os.Stdout, stdio.MaxConcurrent(1)); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"resultType":"complete"}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: nope"}}
}
