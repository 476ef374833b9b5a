package client_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
)

func ExampleRetry() {
	// A server whose first tools/list is over its rate limit.
	var calls atomic.Int32
	limit := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.Method == "tools/list" && calls.Add(1) == 1 {
				return nil, sake.RateLimited("lists", 1500*time.Millisecond)
			}
			return next(ctx, req)
		}
	}
	srv := sake.MustNew(greeter{}, sake.Use(limit))

	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv), client.Retry(client.RetryPolicy{
		MaxAttempts: 4,
		// Sleep is for tests: the default waits on a timer.
		Sleep: func(ctx context.Context, d time.Duration) error {
			fmt.Println("waiting", d)
			return nil
		},
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(tools), "tool after", calls.Load(), "requests")
	// Output:
	// waiting 1.5s
	// 1 tool after 2 requests
}

func ExampleWithCache() {
	var lists atomic.Int32
	count := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.Method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, req)
		}
	}
	srv := sake.MustNew(greeter{}, sake.Use(count), sake.CacheHints(time.Minute, time.Minute, "public"))
	// One cache may serve several clients; private results stay with the
	// credential that fetched them.
	cache := client.NewCache(client.CacheMaxEntries(100))

	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv), client.WithCache(cache))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for range 3 {
		// The first call asks the server; the others, within the minute
		// the server allows, are answered from the cache.
		if _, err := c.ListTools(ctx); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(lists.Load(), "request,", cache.Len(), "result kept")
	// Output: 1 request, 1 result kept
}
