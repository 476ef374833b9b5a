package otel

import (
	"context"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/sakemcp/sake-go/sake/gateway"
)

// GatewayHooks returns the hooks (gateway.Observe) that measure a
// gateway per entry: sake.gateway.calls and sake.gateway.errors count
// the requests routed to each remote and those that failed,
// sake.gateway.call.duration is their latency in seconds,
// sake.gateway.restarts counts the remotes' reconnections and
// sake.gateway.reloads the configuration reloads (attribute
// sake.gateway.reload.ok). Each measure carries sake.gateway.server, the
// entry's key, and the call measures mcp.method.name.
//
//	g, err := gateway.New(ctx, cfg, gateway.Observe(sakeotel.GatewayHooks()))
func GatewayHooks(opts ...Option) gateway.Hooks {
	t := New(opts...)
	m := t.cfg.mp.Meter(ScopeName)
	report := func(e error) {
		if e != nil {
			otelapi.Handle(e)
		}
	}
	calls, err := m.Int64Counter("sake.gateway.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Requests the gateway routed to a remote server."))
	report(err)
	errs, err := m.Int64Counter("sake.gateway.errors", metric.WithUnit("{error}"),
		metric.WithDescription("Requests routed to a remote server answered with an error or a tool error result."))
	report(err)
	latency, err := m.Float64Histogram("sake.gateway.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Time the gateway took to answer a request routed to a remote server."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	report(err)
	restarts, err := m.Int64Counter("sake.gateway.restarts", metric.WithUnit("{restart}"),
		metric.WithDescription("Connections to a remote server made again after it was lost."))
	report(err)
	reloads, err := m.Int64Counter("sake.gateway.reloads", metric.WithUnit("{reload}"),
		metric.WithDescription("Configuration reloads, applied or refused."))
	report(err)
	ctx := context.Background()
	return gateway.Hooks{
		Call: func(e gateway.CallEvent) {
			set := metric.WithAttributeSet(attribute.NewSet(attribute.String("sake.gateway.server", e.Server), attribute.String("mcp.method.name", e.Method)))
			calls.Add(ctx, 1, set)
			if e.Failed {
				errs.Add(ctx, 1, set)
			}
			latency.Record(ctx, e.Duration.Seconds(), set)
		},
		Restarted: func(server string) {
			restarts.Add(ctx, 1, metric.WithAttributes(attribute.String("sake.gateway.server", server)))
		},
		Reloaded: func(err error) {
			reloads.Add(ctx, 1, metric.WithAttributes(attribute.Bool("sake.gateway.reload.ok", err == nil)))
		},
	}
}
