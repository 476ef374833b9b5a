package sake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// A server that serves more than it lists takes subscriptions to the
// URIs it knows, here any sensor://, and hears when each one ends.
func ExampleSubscribeUnlisted() {
	srv := sake.MustNew(nil, sake.SubscribeUnlisted(func(_ context.Context, _ *sake.Request, uri string) (func(), error) {
		if !strings.HasPrefix(uri, "sensor://") {
			return nil, sake.NewError(sake.CodeInvalidParams, "Invalid params: no such resource: %s", uri)
		}
		fmt.Println("watching", uri)
		return func() { fmt.Println("stopped watching", uri) }, nil
	}))
	_ = srv.AddResource(sake.NewResource("sensor://index", func(*sake.Context) (string, error) { return "sensors", nil }))

	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv), client.ProtocolVersion(protocol.LegacyVersion))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, err = c.Request(ctx, "resources/subscribe", map[string]any{"uri": "sensor://kitchen"})
	fmt.Println("subscribed:", err == nil)
	_, err = c.Request(ctx, "resources/subscribe", map[string]any{"uri": "door://front"})
	var e *sake.Error
	fmt.Println("door refused:", errors.As(err, &e) && e.Code == sake.CodeInvalidParams)
	_, _ = c.Request(ctx, "resources/unsubscribe", map[string]any{"uri": "sensor://kitchen"})
	// Output:
	// watching sensor://kitchen
	// subscribed: true
	// door refused: true
	// stopped watching sensor://kitchen
}

// A log message of the server's own, outside any request, reaches the
// handshake-era sessions whose level admits it.
func ExampleServer_Log() {
	srv := sake.MustNew(nil)
	_ = srv.AddTool(sake.NewTool("noop", func(*sake.Context) (string, error) { return "", nil }))
	ctx := context.Background()
	heard := make(chan string, 1)
	c, err := client.Connect(ctx, memory.Transport(srv), client.ProtocolVersion(protocol.LegacyVersion),
		client.OnNotification(func(n protocol.Notification) {
			if n.Method == "notifications/message" {
				heard <- string(n.Params)
			}
		}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_ = c.SetLogLevel(ctx, sake.LevelWarning)
	srv.Log(sake.LevelInfo, "cache", "warmed up") // below the session's level
	srv.Log(sake.LevelError, "cache", "the disk is full")
	fmt.Println(<-heard)
	// Output:
	// {"level":"error","logger":"cache","data":"the disk is full"}
}

// A server that knows why a tool is missing just now says so.
func ExampleExplainMissing() {
	srv := sake.MustNew(nil, sake.ExplainMissing(func(kind, name string) error {
		if strings.HasPrefix(name, "billing_") {
			return sake.NewError(sake.CodeInternalError, "%s %s: the billing server is restarting; retry shortly", kind, name)
		}
		return nil
	}))
	_ = srv.AddTool(sake.NewTool("ping", func(*sake.Context) (string, error) { return "pong", nil }))
	ctx := context.Background()
	c, err := client.Connect(ctx, memory.Transport(srv))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, err = c.CallTool(ctx, "billing_refund", nil)
	fmt.Println(err)
	_, err = c.CallTool(ctx, "other", nil)
	fmt.Println(err)
	// Output:
	// mcp error -32603: tool billing_refund: the billing server is restarting; retry shortly
	// mcp error -32602: Unknown tool: other
}
