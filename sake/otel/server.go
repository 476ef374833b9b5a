package otel

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// knownVersions are the revisions the metrics name; anything else a
// client sends would let it grow their cardinality.
var knownVersions = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range protocol.SupportedVersions() {
		m[v] = true
	}
	return m
}()

// metaCarrier reads the trace context fields of a request's _meta.
type metaCarrier struct{ m *sake.RequestMeta }

func (c metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.m.TraceParent
	case "tracestate":
		return c.m.TraceState
	case "baggage":
		return c.m.Baggage
	}
	return ""
}

func (metaCarrier) Set(string, string) {}

func (c metaCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

// target returns the low-cardinality name a request is about, and its key.
func target(req *sake.Request) (string, attribute.Key) {
	switch req.Method {
	case "tools/call":
		if n := req.Params.Name; n != "" && len(n) <= maxName {
			return n, keyToolName
		}
	case "prompts/get":
		if n := req.Params.Name; n != "" && len(n) <= maxName {
			return n, keyPromptName
		}
	}
	return "", ""
}

// request starts the SERVER span of a request or notification.
func (t *Telemetry) request(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
	start := time.Now()
	parent := ctx
	var opts [3]trace.SpanStartOption
	o := append(opts[:0], trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start))
	if m := req.Params.Meta; m != nil && (m.TraceParent != "" || m.Baggage != "") {
		parent = t.prop.Extract(ctx, metaCarrier{m})
		remote := trace.SpanContextFromContext(parent)
		if ambient := trace.SpanContextFromContext(ctx); ambient.IsValid() && remote.IsValid() && !ambient.Equal(remote) {
			o = append(o, trace.WithLinks(trace.Link{SpanContext: ambient}))
		}
	}
	method := cut(req.Method, maxName)
	name, nameKey := target(req)
	spanName := method
	if name != "" {
		spanName = method + " " + name
	}
	ctx, span := t.tracer.Start(parent, spanName, o...)
	recording := span.IsRecording()
	if recording {
		attrs := make([]attribute.KeyValue, 0, 10)
		attrs = append(attrs, keyMethod.String(method))
		if id := requestID(req.ID); id != "" {
			attrs = append(attrs, keyRequestID.String(id))
		}
		if name != "" {
			attrs = append(attrs, nameKey.String(name))
		}
		switch req.Method {
		case "tools/call":
			attrs = append(attrs, keyOperation.String(opTool))
			if p := req.Params; p.RequestState != nil || len(p.InputResponses) > 0 {
				attrs = append(attrs, keyRetry.Bool(true))
			}
			if t.cfg.toolIO[req.Params.Name] && len(req.Params.Arguments) > 0 {
				attrs = append(attrs, keyToolArgs.String(cut(string(req.Params.Arguments), maxIO)))
			}
		case "resources/read", "resources/subscribe", "resources/unsubscribe":
			if u := req.Params.URI; u != "" {
				attrs = append(attrs, keyResourceURI.String(cut(u, 4*maxName)))
			}
		}
		attrs = transportAttrs(req.Transport(), attrs)
		if v := httpVersion(ctx); v != "" {
			attrs = append(attrs, keyProtocolVer.String(v))
		}
		span.SetAttributes(attrs...)
	}
	listen := req.Method == "subscriptions/listen"
	if listen {
		t.m.listenStreams.Add(ctx, 1, metric.WithAttributes(keyStream.String("subscriptions/listen")))
	}
	return ctx, func(d sake.RequestDone) {
		t.requestDone(ctx, span, recording, req, start, method, name, nameKey, listen, d)
	}
}

func (t *Telemetry) requestDone(ctx context.Context, span trace.Span, recording bool, req *sake.Request, start time.Time,
	method, name string, nameKey attribute.Key, listen bool, d sake.RequestDone) {
	elapsed := time.Since(start).Seconds()
	errType, status, msg := "", "", ""
	if d.Error != nil {
		status = codeString(d.Error.Code)
		errType, msg = status, d.Error.Message
		if d.Error.Code == sake.CodeInvalidParams && name != "" {
			// Perhaps no such tool or prompt: keep the name out of the
			// span's name and the metrics.
			span.SetName(method)
			name = ""
		}
	} else if d.ToolError {
		errType = toolErr
	}
	if recording {
		attrs := make([]attribute.KeyValue, 0, 6)
		if req.ProtocolVersion != "" {
			attrs = append(attrs, keyProtocolVersion.String(cut(req.ProtocolVersion, maxName)))
		}
		if s := req.Session; s != nil {
			attrs = append(attrs, keySessionID.String(t.id(s.ID())))
		}
		if errType != "" {
			attrs = append(attrs, keyErrorType.String(errType))
		}
		if status != "" {
			attrs = append(attrs, keyStatusCode.String(status))
		}
		if d.ResultType != "" {
			attrs = append(attrs, keyResultType.String(d.ResultType))
		}
		if r, ok := d.Result.(*sake.ToolResult); ok && !d.ToolError && d.ResultType == "" && t.cfg.toolIO[req.Params.Name] {
			if b, err := json.Marshal(r); err == nil {
				attrs = append(attrs, keyToolResult.String(cut(string(b), maxIO)))
			}
		}
		span.SetAttributes(attrs...)
		if errType != "" {
			span.SetStatus(codes.Error, msg)
		}
	}
	span.End()
	if listen {
		t.m.listenStreams.Add(ctx, -1, metric.WithAttributes(keyStream.String("subscriptions/listen")))
	}
	if t.m.opDuration.Enabled(ctx) {
		attrs := make([]attribute.KeyValue, 0, 9)
		attrs = append(attrs, keyMethod.String(method))
		if name != "" {
			attrs = append(attrs, nameKey.String(name))
		}
		if req.Method == "tools/call" {
			attrs = append(attrs, keyOperation.String(opTool))
		}
		if knownVersions[req.ProtocolVersion] {
			attrs = append(attrs, keyProtocolVersion.String(req.ProtocolVersion))
		}
		if errType != "" {
			attrs = append(attrs, keyErrorType.String(errType))
		}
		if status != "" {
			attrs = append(attrs, keyStatusCode.String(status))
		}
		attrs = transportAttrs(req.Transport(), attrs)
		t.m.opDuration.Record(ctx, elapsed, metric.WithAttributes(attrs...))
	}
	if d.ToolError && name != "" {
		t.m.toolErrors.Add(ctx, 1, metric.WithAttributes(keyToolName.String(name)))
	}
}
