package middleware_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
)

// Two calls a second per caller: the third call in the same second is
// refused with the delay until the next token.
func Example() {
	now := func() time.Time { return time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC) } // time stands still
	rl, err := middleware.NewRateLimiter([]middleware.Limit{{Rate: 2, Methods: []string{"tools/call"}}}, middleware.Clock(now))
	if err != nil {
		panic(err)
	}
	srv := sake.MustNew(tools{}, sake.Use(rl.Middleware()))
	alice := &sake.Inbound{Identity: &sake.Identity{Subject: "alice"}}
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for range 3 {
		r := srv.Handle(context.Background(), call, alice)
		fmt.Println(r.ErrorCode, r.RetryAfter > 0)
	}
	// Output:
	// 0 false
	// 0 false
	// -32029 true
}

// counter's read-only tool says how often it ran.
type counter struct{ runs *int }

func (c counter) Count(ctx *sake.Context) (string, error) {
	*c.runs++
	return fmt.Sprint("run ", *c.runs), nil
}

func (counter) Declare(d *sake.Declarations) { d.Tool("Count").ReadOnly() }

// The second call of a read-only tool is served from the cache, for the
// same caller; an update of the tools list drops what was kept.
func ExampleCache() {
	cache, err := middleware.Cache{TTL: time.Minute}.Middleware()
	if err != nil {
		panic(err)
	}
	srv := sake.MustNew(counter{runs: new(int)}, sake.Use(cache))
	alice := &sake.Inbound{Identity: &sake.Identity{Subject: "alice"}}
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count",` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	text := func() string {
		var r struct {
			Result sake.ToolResult `json:"result"`
		}
		_ = json.Unmarshal(srv.Handle(context.Background(), call, alice).Body, &r)
		return r.Result.Text()
	}
	fmt.Println(text())
	fmt.Println(text())
	srv.NotifyListChanged(sake.ListTools)
	fmt.Println(text())
	// Output:
	// run 1
	// run 1
	// run 2
}

// A JSONSink writes what slog's JSON handler writes, from a buffer:
// Flush (or Close, at exit) writes what it holds.
func ExampleJSONSink() {
	sink := middleware.NewJSONSink(os.Stdout, nil)
	defer sink.Close()
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "mcp request", 0) // no time: the same line at every run
	r.AddAttrs(slog.String("method", "tools/call"), slog.Duration("duration", 1500*time.Microsecond))
	_ = slog.New(sink).Handler().Handle(context.Background(), r)
	_ = sink.Flush()
	// Output:
	// {"level":"INFO","msg":"mcp request","method":"tools/call","duration":1500000}
}
