package sake_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
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

// A server is built from a struct: its exported methods are tools,
// described by Declare. A test meets it as a client does, in memory,
// with saketest.Connect (pass the test's t; exampleT stands in for it
// here).
func Example() {
	t := &exampleT{}
	defer t.end()

	c := saketest.Connect(t, Weather{}, saketest.ServerOptions(sake.Name("weather", "1.0.0")))
	res, err := c.CallTool("forecast", map[string]any{"city": "Lisbon", "days": 2})
	fmt.Println(res, err)

	_, err = c.CallTool("forecast", map[string]any{"days": 9})
	fmt.Println(err)
	// Output:
	// Sunny in Lisbon for 2 days. <nil>
	// Invalid arguments for tool forecast: city: is required; days: must be <= 7
}

// exampleT stands in for a test's *testing.T so that the examples run:
// in a test, pass t itself.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Name() string                      { return "Example" }
func (t *exampleT) Context() context.Context          { return context.Background() }
func (t *exampleT) Cleanup(fn func())                 { t.cleanups = append(t.cleanups, fn) }
func (t *exampleT) Failed() bool                      { return false }
func (t *exampleT) Log(args ...any)                   {}
func (t *exampleT) Logf(format string, args ...any)   {}
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// end runs the cleanups, as testing does when a test ends.
func (t *exampleT) end() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
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
