package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	sakeotel "github.com/sakemcp/sake-go/sake/otel"
)

// exporter is the OpenTelemetry export of -otlp: spans and metrics sent
// to a collector over OTLP/HTTP, in batches.
type exporter struct {
	tp *sdktrace.TracerProvider
	mp *sdkmetric.MeterProvider
}

// newExporter sends spans to base/v1/traces and metrics to
// base/v1/metrics of an OTLP/HTTP collector such as
// http://127.0.0.1:4318.
func newExporter(ctx context.Context, base string) (*exporter, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-otlp wants a collector's base URL such as http://127.0.0.1:4318, not %q", base)
	}
	base = strings.TrimSuffix(base, "/")
	traces, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(base+"/v1/traces"))
	if err != nil {
		return nil, fmt.Errorf("OTLP traces: %w", err)
	}
	metrics, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"))
	if err != nil {
		return nil, fmt.Errorf("OTLP metrics: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "production"), attribute.String("service.version", "1.0.0"))
	return &exporter{
		tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(traces), sdktrace.WithResource(res)),
		mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res)),
	}, nil
}

// options point the server's instrumentation at the exporter.
func (x *exporter) options() []sakeotel.Option {
	return []sakeotel.Option{sakeotel.TracerProvider(x.tp), sakeotel.MeterProvider(x.mp)}
}

// shutdown sends what is still buffered and stops the exporters.
func (x *exporter) shutdown(ctx context.Context) error {
	return errors.Join(x.tp.Shutdown(ctx), x.mp.Shutdown(ctx))
}
