package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// TestStartToolEncoded: the result comes left encoded, as the server sent
// it, and reads as StartTool's does; a tool error is a *ToolError with it.
func TestStartToolEncoded(t *testing.T) {
	srv := sake.MustNew(nil)
	_ = srv.AddTool(sake.NewTool("greet", func(*sake.Context) (string, error) { return "hello", nil }))
	_ = srv.AddTool(sake.NewTool("fail", func(*sake.Context) (string, error) { return "", errors.New("no luck") }))
	for _, era := range []client.Option{client.ProtocolVersion("2025-11-25"), client.ProtocolVersion("2026-07-28")} {
		c, err := client.Connect(context.Background(), memory.Transport(srv), era)
		if err != nil {
			t.Fatal(err)
		}
		res, task, err := c.StartToolEncoded(context.Background(), "greet", nil)
		if err != nil || task != nil || res.Text() != "hello" || !strings.Contains(string(res.Encoded()), `"text":"hello"`) || res.Content != nil {
			t.Fatalf("%v %v %v (encoded %s)", res, task, err, res.Encoded())
		}
		res, _, err = c.StartToolEncoded(context.Background(), "fail", nil)
		var te *protocol.ToolError
		if !errors.As(err, &te) || !res.IsError || res.Encoded() == nil || !strings.Contains(te.Result.Text(), "no luck") {
			t.Fatalf("a tool error: %v, %v", res, err)
		}
		_ = c.Close()
	}
}
