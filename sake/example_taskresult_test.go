package sake_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/tasks"
)

type Reports struct{}

func (Reports) Quarterly(ctx *sake.Context) (string, error) { return "Revenue is up.", nil }

func (Reports) Declare(d *sake.Declarations) { d.Tool("Quarterly").Task(sake.TaskRequired) }

// Middleware that reshapes results reaches the results of tasks too.
func ExampleWithTaskResult() {
	reviewed := func(ctx context.Context, req *sake.Request, res *sake.ToolResult) *sake.ToolResult {
		out := *res
		out.Content = append(slices.Clip(res.Content), sake.Text("(reviewed)"))
		return &out
	}
	review := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.MayBecomeTask() {
				ctx = sake.WithTaskResult(ctx, reviewed)
			}
			res, err := next(ctx, req)
			if r, ok := res.(*sake.ToolResult); ok && err == nil {
				return reviewed(ctx, req, r), nil
			}
			return res, err // a task: reviewed when it ends
		}
	}
	m := tasks.New()
	defer m.Shutdown(context.Background())
	srv := sake.MustNew(Reports{}, sake.Tasks(m), sake.Use(review))
	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "quarterly", nil) // runs as a task, followed to its end
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, block := range res.Content {
		fmt.Println(block.(*sake.TextContent).Text)
	}
	// Output:
	// Revenue is up.
	// (reviewed)
}
