package sake

import (
	"context"
	"log/slog"
)

// clientLogHandler is a slog.Handler that sends records to the client as
// notifications/message.
type clientLogHandler struct {
	c     *Context
	attrs []slog.Attr
	group string
}

func slogToLevel(l slog.Level) LogLevel {
	switch {
	case l >= slog.LevelError+4:
		return LevelCritical
	case l >= slog.LevelError:
		return LevelError
	case l >= slog.LevelWarn:
		return LevelWarning
	case l >= slog.LevelInfo+2:
		return LevelNotice
	case l >= slog.LevelInfo:
		return LevelInfo
	}
	return LevelDebug
}

func (h *clientLogHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.c.logEnabled(slogToLevel(l))
}

func (h *clientLogHandler) Handle(_ context.Context, r slog.Record) error {
	data := map[string]any{"message": r.Message}
	add := func(a slog.Attr) bool {
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		data[key] = a.Value.Resolve().Any()
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	h.c.Log(slogToLevel(r.Level), h.group, data)
	return nil
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &n
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	n := *h
	if n.group != "" {
		name = n.group + "." + name
	}
	n.group = name
	return &n
}
