package saketest_test

import (
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type Greeter struct{}

type GreetArgs struct {
	Name string `json:"name"`
}

func (Greeter) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
	return "Hello, " + a.Name + "!", nil
}

// A test connects a client to the server in memory and calls it as a
// client would.
func ExampleConnect() {
	_ = func(t *testing.T) {
		c := saketest.Connect(t, Greeter{})
		res, err := c.CallTool("greet", map[string]any{"name": "Rui"})
		if err != nil || res.Text() != "Hello, Rui!" {
			t.Fatalf("greet = %v, %v", res, err)
		}
		// Invalid arguments come back as a tool error naming the field.
		var te *sake.ToolError
		if _, err := c.CallTool("greet", map[string]any{}); !errors.As(err, &te) {
			t.Fatalf("want a tool error, got %v", err)
		}
	}
}

// The same test body runs in both protocol eras.
func ExampleLegacy() {
	_ = func(t *testing.T) {
		for _, era := range []saketest.Option{saketest.ClientInfo("test", "1.0"), saketest.Legacy()} {
			c := saketest.Connect(t, Greeter{}, era)
			if _, err := c.CallTool("greet", map[string]any{"name": "Ana"}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A client with scopes carries a simulated token: components are gated.
func ExampleScopes() {
	_ = func(t *testing.T) {
		c := saketest.Connect(t, Greeter{}, saketest.Subject("ana"), saketest.Scopes("greet"))
		var se *sake.InsufficientScopeError
		if _, err := c.CallTool("greet", map[string]any{"name": "Ana"}); errors.As(err, &se) {
			t.Fatalf("greet needs %v", se.Scopes)
		}
	}
}

// The client answers the server's questions and records them.
func ExampleOnInput() {
	_ = func(t *testing.T) {
		c := saketest.Connect(t, Greeter{}, saketest.OnInput(func(p saketest.ElicitParams) saketest.Answer {
			return saketest.Accept(map[string]any{"name": "Rui"})
		}))
		_, _ = c.CallTool("greet", map[string]any{"name": "Rui"})
		saketest.RefuteAsked(t, c, "elicitation/create", map[string]any{"message": "Who?"})
	}
}
