package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
)

// telemetry is the OpenTelemetry set-up of -otlp: nothing when the flag
// is empty.
type telemetry struct {
	tel      *sakeotel.Telemetry
	tp       *sdktrace.TracerProvider
	mp       *sdkmetric.MeterProvider
	disabled bool
}

// newTelemetry sends spans to base/v1/traces and metrics to
// base/v1/metrics of an OTLP/HTTP collector such as
// http://127.0.0.1:4318. An empty base disables telemetry.
func newTelemetry(ctx context.Context, base string) (*telemetry, error) {
	if base == "" {
		return &telemetry{disabled: true}, nil
	}
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
	res := resource.NewSchemaless(attribute.String("service.name", "quickstart"), attribute.String("service.version", "1.0.0"))
	t := &telemetry{
		tp: sdktrace.NewTracerProvider(sdktrace.WithBatcher(traces), sdktrace.WithResource(res)),
		mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res)),
	}
	t.tel = sakeotel.New(sakeotel.TracerProvider(t.tp), sakeotel.MeterProvider(t.mp))
	return t, nil
}

// options are the server options that switch the instrumentation on.
func (t *telemetry) options() []sake.Option {
	if t.disabled {
		return nil
	}
	return []sake.Option{t.tel.Option()}
}

// logHandler adds trace and span ids to the server's logs.
func (t *telemetry) logHandler(h slog.Handler) slog.Handler {
	if t.disabled {
		return h
	}
	return sakeotel.LogHandler(h)
}

// handler continues the trace of the HTTP headers.
func (t *telemetry) handler(h http.Handler) http.Handler {
	if t.disabled {
		return h
	}
	return t.tel.Handler(h)
}

// shutdown sends what is still buffered and stops the exporters.
func (t *telemetry) shutdown(ctx context.Context) error {
	if t.disabled {
		return nil
	}
	return errors.Join(t.tp.Shutdown(ctx), t.mp.Shutdown(ctx))
}
