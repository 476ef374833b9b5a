package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// A server of one tool that relays another server's tool, passing its
// result on as that server wrote it (what sake/proxy does for every
// tool): the relaying server does not decode the result and encode it
// again, unless its middleware or hooks may look at it.
func ExampleClient_StartToolEncoded() {
	ctx := context.Background()
	remote, err := client.Connect(ctx, memory.Transport(sake.MustNew(greeter{})))
	if err != nil {
		panic(err)
	}
	defer remote.Close()

	relay := sake.MustNew(nil)
	_ = relay.AddTool(sake.NewTool("greet", func(c *sake.Context, args json.RawMessage) (*sake.ToolResult, error) {
		res, _, err := remote.StartToolEncoded(c, "greet", args) // greet never runs as a task
		if _, isToolError := errors.AsType[*protocol.ToolError](err); isToolError {
			return res, nil // the tool's own error result, passed on as well
		}
		return res, err
	}))

	c, err := client.Connect(ctx, memory.Transport(relay))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "greet", map[string]string{"name": "Ada"})
	fmt.Println(res.Text(), err)
	// Output: Hello, Ada! <nil>
}
