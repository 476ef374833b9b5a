package stdio_test

import (
	"log"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// Greeter is a server with one tool, greet.
type Greeter struct{}

// GreetArgs are greet's arguments.
type GreetArgs struct {
	Name string `json:"name" jsonschema:"description=Who to greet"`
}

// Greet says hello.
func (g *Greeter) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
	return "Hello, " + a.Name + "!", nil
}

// An MCP server that a client starts as a subprocess: main serves stdin and
// stdout until the client closes stdin or sends SIGTERM.
func Example() {
	srv := sake.MustNew(&Greeter{}, sake.Name("greeter", "1.0.0"))
	if err := stdio.ServeStdio(srv); err != nil {
		log.Fatal(err)
	}
}
