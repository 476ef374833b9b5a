package middleware_test

import (
	"context"
	"fmt"
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
