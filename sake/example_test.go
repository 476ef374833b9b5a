package sake_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sakemcp/sake-go/sake"
)

type Weather struct{}

type ForecastArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=3"`
}

func (Weather) Declare(d *sake.Declarations) {
	d.Tool("Forecast").Description("Forecasts the weather of a city.").ReadOnly()
}

func (Weather) Forecast(ctx *sake.Context, a ForecastArgs) (string, error) {
	return fmt.Sprintf("Sunny in %s for %d days.", a.City, max(a.Days, 1)), nil
}

// A server is built from a struct; Handle answers JSON-RPC messages as a
// transport delivers them.
func Example() {
	srv, err := sake.New(Weather{}, sake.Name("weather", "1.0.0"))
	if err != nil {
		panic(err)
	}
	reply := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
		"name":"forecast","arguments":{"city":"Lisbon","days":2}}}`), nil)
	fmt.Println(string(reply.Body))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Sunny in Lisbon for 2 days."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weather","version":"1.0.0"}}}}
}

// Tools can be added while the server runs; clients following list
// changes are told.
func ExampleServer_AddTool() {
	srv := sake.MustNew(nil)
	type EchoArgs struct {
		Text string `json:"text"`
	}
	err := srv.AddTool(sake.NewTool("echo", func(ctx context.Context, a EchoArgs) (string, error) {
		return a.Text, nil
	}).Description("Echoes its text."))
	fmt.Println(err)
	// Output: <nil>
}

// Middleware wraps the handling of every request.
func ExampleUse() {
	logRequests := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			slog.Info("mcp request", "method", req.Method, "era", req.Era)
			return next(ctx, req)
		}
	}
	_, err := sake.New(Weather{}, sake.Use(logRequests))
	fmt.Println(err)
	// Output: <nil>
}

type Survey struct{}

type Contact struct {
	Email string `json:"email" jsonschema:"format=email"`
}

// A tool asks the user with one call in both eras.
func (Survey) Subscribe(ctx *sake.Context) (string, error) {
	var c Contact
	action, err := ctx.Elicit("contact", "Where should we write to you?", &c)
	if err != nil {
		return "", err // ErrInputRequired in the modern era: the client answers and retries
	}
	if action != sake.Accept {
		return "Not subscribed.", nil
	}
	return "Subscribed " + c.Email + ".", nil
}

func ExampleContext_Elicit() {
	srv := sake.MustNew(Survey{})
	reply := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},
		"name":"subscribe"}}`), nil)
	fmt.Println(reply.ErrorCode == 0 && len(reply.Body) > 0)
	// Output: true
}
