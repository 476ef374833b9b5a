package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// A call made with sake/client over HTTP through RoundTripper is a CLIENT
// span in the caller's trace, and the server's span is its child.
func TestSakeClientOverHTTP(t *testing.T) {
	t.Parallel()
	for _, era := range []string{protocol.ModernVersion, "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			w := newWorld(t)
			srv := sake.MustNew(&weather{}, w.tel.Option())
			h := plug.New(srv)
			defer h.Close()
			ts := httptest.NewServer(w.tel.Handler(h))
			defer ts.Close()
			ctx, app := w.tp.Tracer("test").Start(context.Background(), "agent")
			c, err := client.Connect(ctx, client.HTTP(ts.URL, &http.Client{Transport: w.tel.RoundTripper(nil)}), client.ProtocolVersion(era))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.CallTool(ctx, "forecast", map[string]any{"city": "Faro"})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %v", res, err)
			}
			_ = c.Close()
			app.End()
			server := findKind(w, "tools/call forecast", trace.SpanKindServer)
			if server == nil {
				t.Fatalf("no server span: %v", w.names())
			}
			var outgoing = findKind(w, "tools/call forecast", trace.SpanKindClient)
			if outgoing == nil {
				// Handshake-era requests carry no Mcp-Method header: the
				// client span is named by the HTTP method.
				for _, s := range w.spans.Ended() {
					if s.SpanKind() == trace.SpanKindClient && s.SpanContext().SpanID() == server.Parent().SpanID() {
						outgoing = s
					}
				}
			}
			if outgoing == nil {
				t.Fatalf("no client span for the call: %v", w.names())
			}
			childOf(t, outgoing, app.SpanContext())
			childOf(t, server, outgoing.SpanContext())
		})
	}
}
