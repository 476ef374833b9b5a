package sake_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// Middleware that only counts calls and their failures is added with
// UseObserving: it looks at nothing of a result but IsError, so a
// proxied tool result is still copied into the reply as the remote wrote
// it.
func ExampleUseObserving() {
	var calls, failures atomic.Int64
	count := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			res, err := next(ctx, req)
			if req.Method == "tools/call" {
				calls.Add(1)
				if tr, ok := res.(*sake.ToolResult); err != nil || ok && tr.IsError {
					failures.Add(1)
				}
			}
			return res, err
		}
	}
	t := &exampleT{}
	defer t.end()
	c := saketest.Connect(t, Weather{}, saketest.ServerOptions(sake.UseObserving(count)))
	res, err := c.CallTool("forecast", map[string]any{"city": "Lyon"})
	fmt.Println(res, err)
	fmt.Println(calls.Load(), failures.Load())
	// Output:
	// Sunny in Lyon for 1 days. <nil>
	// 1 0
}

// Hooks that only look at each request's outcome (its error, whether a
// tool result has isError set, the reply's length) are given with
// ObserveOutcome: like UseObserving's middleware, they leave a proxied
// tool result as the remote wrote it.
func ExampleObserveOutcome() {
	var requests, toolErrors atomic.Int64
	hooks := sake.Hooks{Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
		return nil, func(d sake.RequestDone) {
			requests.Add(1)
			if d.ToolError {
				toolErrors.Add(1)
			}
		}
	}}
	t := &exampleT{}
	defer t.end()
	c := saketest.Connect(t, Weather{}, saketest.ServerOptions(sake.ObserveOutcome(hooks)))
	res, err := c.CallTool("forecast", map[string]any{"city": "Lyon"})
	fmt.Println(res, err)
	fmt.Println(requests.Load() > 0, toolErrors.Load())
	// Output:
	// Sunny in Lyon for 1 days. <nil>
	// true 0
}
