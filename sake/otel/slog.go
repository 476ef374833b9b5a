package otel

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler wraps h so that every record logged with a context that
// carries a span gains its trace_id and span_id: the server logs panics
// with the context of the request or task they happened in, and
// slog.InfoContext(ctx, ...) in a tool does the same.
//
//	slog.SetDefault(slog.New(sakeotel.LogHandler(slog.NewJSONHandler(os.Stderr, nil))))
func LogHandler(h slog.Handler) slog.Handler { return &logHandler{h: h} }

type logHandler struct{ h slog.Handler }

func (l *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return l.h.Handle(ctx, r)
}

func (l *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{h: l.h.WithAttrs(attrs)}
}

func (l *logHandler) WithGroup(name string) slog.Handler { return &logHandler{h: l.h.WithGroup(name)} }
