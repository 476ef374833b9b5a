package otel_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
	sakeotel "github.com/sakemcp/sake-go/sake/otel"
)

// world is a tracer and meter provider that keep everything in memory.
type world struct {
	t      *testing.T
	spans  *tracetest.SpanRecorder
	ended  chan sdktrace.ReadOnlySpan
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
	tel    *sakeotel.Telemetry
}

// notifier tells the test about every span that ends.
type notifier struct{ ch chan sdktrace.ReadOnlySpan }

func (n notifier) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (n notifier) OnEnd(s sdktrace.ReadOnlySpan)                   { n.ch <- s }
func (n notifier) Shutdown(context.Context) error                  { return nil }
func (n notifier) ForceFlush(context.Context) error                { return nil }

func newWorld(t *testing.T, opts ...sakeotel.Option) *world {
	w := &world{t: t, spans: tracetest.NewSpanRecorder(), ended: make(chan sdktrace.ReadOnlySpan, 256), reader: sdkmetric.NewManualReader()}
	w.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(w.spans), sdktrace.WithSpanProcessor(notifier{w.ended}))
	w.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(w.reader))
	w.tel = sakeotel.New(append([]sakeotel.Option{sakeotel.TracerProvider(w.tp), sakeotel.MeterProvider(w.mp)}, opts...)...)
	t.Cleanup(func() {
		_ = w.tp.Shutdown(context.Background())
		_ = w.mp.Shutdown(context.Background())
	})
	return w
}

// waitSpan waits for a span of that name to end and returns it.
func (w *world) waitSpan(name string) sdktrace.ReadOnlySpan {
	w.t.Helper()
	for s := range w.ended {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// span returns the one ended span of that name.
func (w *world) span(name string) sdktrace.ReadOnlySpan {
	w.t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range w.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		w.t.Fatalf("%d spans named %q; all: %v", len(found), name, w.names())
	}
	return found[0]
}

func (w *world) names() []string {
	var n []string
	for _, s := range w.spans.Ended() {
		n = append(n, s.Name())
	}
	return n
}

// attrs returns a span's attributes as a map.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// want checks attributes: a value of "" means the attribute must be absent.
func want(t *testing.T, s sdktrace.ReadOnlySpan, exp map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range exp {
		g, ok := got[k]
		switch {
		case v == "" && ok:
			t.Errorf("span %q: %s = %q, want it absent", s.Name(), k, g)
		case v != "" && g != v:
			t.Errorf("span %q: %s = %q, want %q", s.Name(), k, g, v)
		}
	}
}

// childOf checks the parent of a span.
func childOf(t *testing.T, s sdktrace.ReadOnlySpan, parent trace.SpanContext) {
	t.Helper()
	if s.Parent().SpanID() != parent.SpanID() || s.SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("span %q: parent %s/%s, want %s/%s", s.Name(), s.SpanContext().TraceID(), s.Parent().SpanID(), parent.TraceID(), parent.SpanID())
	}
}

// metrics collects the metrics now.
func (w *world) metrics() map[string]metricdata.Metrics {
	w.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := w.reader.Collect(context.Background(), &rm); err != nil {
		w.t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// sum returns the value of a sum metric at the point with these attributes.
func sum(m metricdata.Metrics, kv ...attribute.KeyValue) (int64, bool) {
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		return 0, false
	}
	set := attribute.NewSet(kv...)
	for _, p := range s.DataPoints {
		if p.Attributes.Equals(&set) {
			return p.Value, true
		}
	}
	return 0, false
}

// histogramCount returns the count of the histogram point with these
// attributes, and its bounds.
func histogramCount(m metricdata.Metrics, kv ...attribute.KeyValue) (uint64, []float64) {
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		return 0, nil
	}
	set := attribute.NewSet(kv...)
	for _, p := range h.DataPoints {
		if p.Attributes.Equals(&set) {
			return p.Count, p.Bounds
		}
	}
	return 0, nil
}

// weather is the server under test.
type weather struct{}

// slow runs its one tool as a task, until released.
type slow struct{ release chan struct{} }

type cityArgs struct {
	City string `json:"city"`
}

type nameForm struct {
	Name string `json:"name"`
}

func (*slow) Declare(d *sake.Declarations) { d.Tool("Slow").Task(sake.TaskRequired) }

func (*weather) Forecast(ctx *sake.Context, a cityArgs) (string, error) {
	return "sunny in " + a.City, nil
}

func (*weather) Broken(ctx *sake.Context, a cityArgs) (string, error) {
	return "", errors.New("the station is down")
}

func (*weather) Explode(ctx *sake.Context) (string, error) { panic("boom") }

func (*weather) Greet(ctx *sake.Context) (string, error) {
	var f nameForm
	if _, err := ctx.Elicit("who", "Your name?", &f); err != nil {
		return "", err
	}
	return "hello " + f.Name, nil
}

func (w *slow) Slow(ctx *sake.Context) (string, error) {
	select {
	case <-w.release:
		return "slow done", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// findKind returns the ended span of that name and kind, or nil.
func findKind(w *world, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	for _, s := range w.spans.Ended() {
		if s.Name() == name && s.SpanKind() == kind {
			return s
		}
	}
	return nil
}
