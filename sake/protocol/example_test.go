package protocol_test

import (
	"fmt"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// A result left encoded, as a proxy receives it from its remote server:
// it reads as a result, and Encoded gives the JSON to pass on until a
// field is decoded or set.
func ExampleToolResultFromWire() {
	res, err := protocol.ToolResultFromWire([]byte(`{"content":[{"type":"text","text":"caf\u00e9"}],"isError":true}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Text())
	fmt.Println(string(res.Encoded()))
	if err := res.Decode(); err != nil {
		panic(err)
	}
	fmt.Println(len(res.Content), res.Encoded() == nil)
	// Output:
	// true café
	// {"content":[{"type":"text","text":"caf\u00e9"}],"isError":true}
	// 1 true
}
