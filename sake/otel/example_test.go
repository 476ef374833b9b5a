package otel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
)

// One option instruments a server; here its spans go to an in-memory
// recorder instead of the global provider.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	srv := sake.MustNew(&weather{}, sakeotel.Instrument(sakeotel.TracerProvider(tp)))

	srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Porto"},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},`+
		`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`), nil)

	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.SpanKind(), s.SpanContext().TraceID())
		for _, kv := range s.Attributes() {
			fmt.Println(" ", kv.Key, "=", kv.Value.String())
		}
	}
	// Output:
	// tools/call forecast server 4bf92f3577b34da6a3ce929d0e0e4736
	//   mcp.method.name = tools/call
	//   jsonrpc.request.id = 1
	//   gen_ai.tool.name = forecast
	//   gen_ai.operation.name = execute_tool
	//   mcp.protocol.version = 2026-07-28
}
