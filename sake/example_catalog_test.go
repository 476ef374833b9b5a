package sake_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// Middleware that lists or searches tools itself reads the server's
// catalog: its tools, their list entries and whether a caller may list
// each.
func ExampleServer_ToolCatalog() {
	listed := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			cat := req.Server().ToolCatalog()
			for i := range cat.Len() {
				fmt.Println(cat.Name(i), cat.Listed(req, i), cat.Permits(req, i))
			}
			return next(ctx, req)
		}
	}
	srv := sake.MustNew(nil, sake.PerCallerLists(nil), sake.Use(listed))
	err := srv.AddTool(
		sake.NewTool("ping", func(*sake.Context, struct{}) (string, error) { return "pong", nil }),
		sake.NewTool("refund", func(*sake.Context, struct{}) (string, error) { return "done", nil }).Scopes("shop:admin"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	// An anonymous caller: it may list ping, not refund.
	srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil)
	// Output:
	// ping true true
	// refund false false
}
