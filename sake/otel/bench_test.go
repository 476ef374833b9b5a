package otel_test

import (
	"context"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
)

type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkToolsCall measures a modern tools/call through the dispatcher
// without instrumentation, with it and no provider (no-op tracer and
// meter), and with the SDK sampling every span and aggregating metrics.
func BenchmarkToolsCall(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},"name":"forecast","arguments":{"city":"Porto"}}}`)
	sdk := func() []sake.Option {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
		return []sake.Option{sakeotel.Instrument(sakeotel.TracerProvider(tp), sakeotel.MeterProvider(mp))}
	}
	cases := []struct {
		name string
		opts func() []sake.Option
	}{
		{"bare", func() []sake.Option { return nil }},
		{"noop", func() []sake.Option {
			return []sake.Option{sakeotel.Instrument(sakeotel.TracerProvider(tracenoop.NewTracerProvider()), sakeotel.MeterProvider(metricnoop.NewMeterProvider()))}
		}},
		{"sdk", sdk},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := sake.MustNew(&weather{}, c.opts()...)
			in := &sake.Inbound{Transport: "stdio"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
					b.Fatal(string(r.Body))
				}
			}
		})
	}
}
