package saketest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
)

// testLogger returns a logger that writes to the test's log, shown when
// the test fails or runs with -v, and nowhere once the test has ended.
// With quietPanics, the server's record of a panic is left out: the test
// client reports the panic itself, with its stack, at the test's line.
func testLogger(t testing.TB, quietPanics bool) *slog.Logger {
	h := &tlogHandler{t: t, done: new(atomic.Bool), quietPanics: quietPanics}
	t.Cleanup(func() { h.done.Store(true) })
	return slog.New(h)
}

type tlogHandler struct {
	t     testing.TB
	done  *atomic.Bool
	attrs []slog.Attr

	quietPanics bool
}

func (h *tlogHandler) Enabled(context.Context, slog.Level) bool { return !h.done.Load() }

func (h *tlogHandler) Handle(_ context.Context, r slog.Record) error {
	if h.done.Load() || (h.quietPanics && strings.HasPrefix(r.Message, "sake: panic in ")) {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	h.t.Log(b.String())
	return nil
}

func (h *tlogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &n
}

func (h *tlogHandler) WithGroup(string) slog.Handler { return h }
