package sake_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
)

// A server mounted under a namespace: its tool refund is the shop's
// billing_refund, and its resources get the namespace before their
// scheme.
func ExampleServer_Mount() {
	billing := sake.MustNew(nil, sake.Name("billing", "1.0.0"))
	_ = billing.AddTool(sake.NewTool("refund", func(*sake.Context) (string, error) { return "refunded", nil }))
	_ = billing.AddResource(sake.NewResource("notes://today", func(*sake.Context) (string, error) { return "a quiet day", nil }))

	shop := sake.MustNew(nil, sake.Name("shop", "1.0.0"))
	if err := shop.Mount("billing", billing); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(shop))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, _ := c.ListTools(ctx)
	res, _ := c.CallTool(ctx, tools[0].Name, nil)
	contents, _ := c.ReadResource(ctx, "billing+notes://today")
	fmt.Println(tools[0].Name, "->", res.Text())
	fmt.Println(contents[0].URI, "->", contents[0].Text)
	// Output:
	// billing_refund -> refunded
	// billing+notes://today -> a quiet day
}
