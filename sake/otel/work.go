package otel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// panicked records a panic in user code as an exception event on the span
// the code ran in.
func (t *Telemetry) panicked(ctx context.Context, recovered any, stack []byte) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.AddEvent("exception", trace.WithAttributes(
		keyException.String(fmt.Sprintf("panic: %T", recovered)),
		keyExcMessage.String(cut(fmt.Sprint(recovered), maxIO)),
		keyExcStack.String(cut(string(stack), 4*maxIO)),
	))
}

// errorType classifies an error for error.type.
func errorType(err error) string {
	var e *sake.Error
	switch {
	case errors.As(err, &e):
		return codeString(e.Code)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return otherErr
}

// input starts the span of a question to the client: CLIENT when it is a
// request sent to a legacy client, INTERNAL when it travels in a result.
func (t *Telemetry) input(ctx context.Context, q sake.Question) func(error) {
	kind := trace.SpanKindInternal
	if q.RequestID != "" {
		kind = trace.SpanKindClient
	}
	_, span := t.tracer.Start(ctx, cut(q.Method, maxName), trace.WithSpanKind(kind))
	if span.IsRecording() {
		attrs := []attribute.KeyValue{keyMethod.String(cut(q.Method, maxName))}
		if q.Key != "" {
			attrs = append(attrs, keyInputKey.String(cut(q.Key, maxName)))
		}
		if q.RequestID != "" {
			attrs = append(attrs, keyRequestID.String(requestID([]byte(q.RequestID))))
		}
		span.SetAttributes(attrs...)
	}
	return func(err error) {
		if err != nil {
			et := errorType(err)
			span.SetAttributes(keyErrorType.String(et))
			span.SetStatus(codes.Error, cut(err.Error(), maxName))
		}
		span.End()
	}
}

// task starts the span of a task's life: a child of the request that
// created it, linked to it as well, carried by the task's own context.
func (t *Telemetry) task(reqCtx, workCtx context.Context, task *backend.Task) (context.Context, func(sake.TaskDone)) {
	tool := cut(task.Tool, maxName)
	_, span := t.tracer.Start(reqCtx, "task "+tool,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithLinks(trace.LinkFromContext(reqCtx)),
		trace.WithAttributes(keyToolName.String(tool), keyOperation.String(opTool), keyTaskID.String(t.id(task.ID))))
	toolAttr := metric.WithAttributes(keyToolName.String(tool))
	t.m.activeTasks.Add(workCtx, 1, toolAttr)
	return trace.ContextWithSpan(workCtx, span), func(d sake.TaskDone) {
		span.SetAttributes(keyTaskStatus.String(d.Status))
		switch {
		case d.Error != nil:
			span.SetAttributes(keyErrorType.String(codeString(d.Error.Code)))
			span.SetStatus(codes.Error, d.Error.Message)
		case d.ToolError:
			span.SetAttributes(keyErrorType.String(toolErr))
			span.SetStatus(codes.Error, "")
			t.m.toolErrors.Add(workCtx, 1, toolAttr)
		case d.Status == sake.TaskCancelled:
			span.SetAttributes(keyErrorType.String("cancelled"))
			span.SetStatus(codes.Error, "cancelled")
		}
		span.End()
		t.m.activeTasks.Add(context.WithoutCancel(workCtx), -1, toolAttr)
	}
}

// session counts a legacy session while it is open and records its
// duration when it closes.
func (t *Telemetry) session(ctx context.Context, req *sake.Request, s *sake.Session) func() {
	start := time.Now()
	attrs := make([]attribute.KeyValue, 0, 3)
	if knownVersions[s.ProtocolVersion()] {
		attrs = append(attrs, keyProtocolVersion.String(s.ProtocolVersion()))
	}
	attrs = transportAttrs(req.Transport(), attrs)
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	t.m.openSessions.Add(ctx, 1, set)
	base := context.WithoutCancel(ctx)
	return func() {
		t.m.openSessions.Add(base, -1, set)
		t.m.sessDuration.Record(base, time.Since(start).Seconds(), set)
	}
}
