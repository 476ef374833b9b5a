package otel

import (
	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// durationBuckets are the bucket boundaries the semantic conventions give
// for the MCP duration histograms, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

type instruments struct {
	opDuration    metric.Float64Histogram
	sessDuration  metric.Float64Histogram
	toolErrors    metric.Int64Counter
	activeTasks   metric.Int64UpDownCounter
	openSessions  metric.Int64UpDownCounter
	listenStreams metric.Int64UpDownCounter
}

func newInstruments(m metric.Meter) instruments {
	var in instruments
	var err error
	report := func(e error) {
		if e != nil {
			otelapi.Handle(e)
		}
	}
	in.opDuration, err = m.Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	report(err)
	in.sessDuration, err = m.Float64Histogram("mcp.server.session.duration",
		metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP session as observed on the MCP server."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	report(err)
	in.toolErrors, err = m.Int64Counter("sake.server.tool.errors",
		metric.WithUnit("{error}"),
		metric.WithDescription("Tool calls answered with a result whose isError is set."))
	report(err)
	in.activeTasks, err = m.Int64UpDownCounter("sake.server.tasks.active",
		metric.WithUnit("{task}"),
		metric.WithDescription("Tasks whose work is running."))
	report(err)
	in.openSessions, err = m.Int64UpDownCounter("sake.server.sessions.open",
		metric.WithUnit("{session}"),
		metric.WithDescription("Open legacy (handshake-era) sessions."))
	report(err)
	in.listenStreams, err = m.Int64UpDownCounter("sake.server.listen_streams.open",
		metric.WithUnit("{stream}"),
		metric.WithDescription("Open listen streams: subscriptions/listen requests and legacy GET streams."))
	report(err)
	return in
}
