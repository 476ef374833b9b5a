package otel

import (
	"crypto/sha256"
	"encoding/hex"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/sakemcp/sake-go/sake/otel"

// Option configures Telemetry.
type Option func(*config)

type config struct {
	tp     trace.TracerProvider
	mp     metric.MeterProvider
	prop   propagation.TextMapPropagator
	rawIDs bool
	toolIO map[string]bool
}

// TracerProvider sets where spans go; the default is the global one
// (go.opentelemetry.io/otel.GetTracerProvider).
func TracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// MeterProvider sets where metrics go; the default is the global one.
func MeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// Propagator sets how trace context is read from _meta and HTTP headers
// and written to outgoing requests. The default is the global propagator,
// or W3C Trace Context and Baggage when the global one propagates nothing.
func Propagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

// RawIDs records session and task ids as they are instead of as digests.
// Only for deployments where those ids grant nothing (every request is
// authorized by a token that owns its session and tasks).
func RawIDs() Option { return func(c *config) { c.rawIDs = true } }

// RecordToolIO records the arguments and results of the named tools on
// their spans (gen_ai.tool.call.arguments, gen_ai.tool.call.result, each
// truncated to 8 KiB). Name only tools whose inputs and outputs hold
// nothing secret or personal.
func RecordToolIO(tools ...string) Option {
	return func(c *config) {
		if c.toolIO == nil {
			c.toolIO = map[string]bool{}
		}
		for _, t := range tools {
			c.toolIO[t] = true
		}
	}
}

// Telemetry holds the tracer, the meters and the settings one or more
// servers, handlers and clients share.
type Telemetry struct {
	cfg    config
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	m      instruments
}

// New makes Telemetry from options. Instruments that cannot be created
// are reported to the global OpenTelemetry error handler and do nothing.
func New(opts ...Option) *Telemetry {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otelapi.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otelapi.GetMeterProvider()
	}
	if c.prop == nil {
		c.prop = otelapi.GetTextMapPropagator()
		if len(c.prop.Fields()) == 0 {
			c.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
		}
	}
	t := &Telemetry{cfg: c, prop: c.prop,
		tracer: c.tp.Tracer(ScopeName)}
	t.m = newInstruments(c.mp.Meter(ScopeName))
	return t
}

// Instrument returns the option that traces and measures a server, in one
// line:
//
//	srv := sake.MustNew(&Weather{}, sakeotel.Instrument())
func Instrument(opts ...Option) sake.Option { return New(opts...).Option() }

// Option returns the sake option that installs t's hooks on a server.
// Without RecordToolIO they observe only the outcome of each request (of
// a tool result, whether isError is set), and are installed with
// sake.ObserveOutcome: a tool result left encoded, a proxy's or a
// gateway's, still goes into the reply as the remote wrote it. With
// RecordToolIO they read the results they record, and are installed with
// sake.Observe, which has every result decoded for them.
func (t *Telemetry) Option() sake.Option {
	if len(t.cfg.toolIO) > 0 {
		return sake.Observe(t.Hooks())
	}
	return sake.ObserveOutcome(t.Hooks())
}

// Hooks returns the hooks that trace and measure a server, for servers
// that combine them with hooks of their own. Install them as Option does:
// with sake.ObserveOutcome, unless t records tool results (RecordToolIO),
// then with sake.Observe.
func (t *Telemetry) Hooks() sake.Hooks {
	return sake.Hooks{
		Request: t.request,
		Panic:   t.panicked,
		Input:   t.input,
		Task:    t.task,
		Session: t.session,
	}
}

// id returns a session or task id as it is recorded.
func (t *Telemetry) id(v string) string {
	if t.cfg.rawIDs || v == "" {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:16])
}
