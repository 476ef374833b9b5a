package memory_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

type greeter struct{}

type greetIn struct {
	Name string `json:"name"`
}

func (greeter) Greet(_ *sake.Context, a greetIn) (string, error) {
	return fmt.Sprintf("Hello, %s!", a.Name), nil
}

func ExampleTransport() {
	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(sake.MustNew(greeter{})), client.ProtocolVersion(protocol.LegacyVersion))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, _ := c.CallTool(ctx, "greet", map[string]string{"name": "Grace"})
	fmt.Println(c.Info().ProtocolVersion, res.Text())
	// Output: 2025-11-25 Hello, Grace!
}
