package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// rounds asks two questions one after the other.
type rounds struct{}

func (rounds) Declare(d *sake.Declarations) { d.Tool("Interview").Description("Asks twice.") }

type colorForm struct {
	Color string `json:"color"`
}

func (rounds) Interview(ctx *sake.Context) (string, error) {
	var n nameForm
	if _, err := ctx.Elicit("name", "Name?", &n); err != nil {
		return "", err
	}
	var c colorForm
	if _, err := ctx.Elicit("color", "Color?", &c); err != nil {
		return "", err
	}
	return n.Name + " likes " + c.Color, nil
}

func TestInputRounds(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(rounds{})
	answer := client.OnElicit(func(_ context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
		if r.Message == "Name?" {
			return client.Accept(map[string]string{"name": "Ada"}), nil
		}
		return client.Accept(map[string]string{"color": "blue"}), nil
	})
	c, err := client.Connect(t.Context(), memory.Transport(srv), answer)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(t.Context(), "interview", nil)
	if err != nil || res.Text() != "Ada likes blue" {
		t.Fatalf("interview = %v, %v", res, err)
	}
	// A bound on the rounds stops a server that keeps asking.
	c2, err := client.Connect(t.Context(), memory.Transport(srv), answer, client.MaxInputRounds(2))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.CallTool(t.Context(), "interview", nil); err == nil || !strings.Contains(err.Error(), "MaxInputRounds") {
		t.Fatalf("bounded rounds: %v", err)
	}
	// A handler's failure reaches the caller.
	c3, err := client.Connect(t.Context(), memory.Transport(srv), client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
		return nil, context.DeadlineExceeded
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if _, err := c3.CallTool(t.Context(), "interview", nil); err == nil || !strings.Contains(err.Error(), "elicitation/create") {
		t.Fatalf("failing handler: %v", err)
	}
}
