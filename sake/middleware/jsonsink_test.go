package middleware_test

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// A JSONSink writes what slog.JSONHandler writes, byte for byte.
func TestJSONSinkMatchesSlog(t *testing.T) {
	t.Parallel()
	var want, got logBuffer
	sink := middleware.NewJSONSink(&got, &middleware.JSONSinkOptions{Level: slog.LevelDebug})
	loggers := []*slog.Logger{slog.New(slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug})), slog.New(sink)}
	at := time.Date(2026, 7, 28, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
	for _, l := range loggers {
		h := l.Handler()
		log := func(h slog.Handler, level slog.Level, msg string, attrs ...slog.Attr) {
			r := slog.NewRecord(at, level, msg, 0)
			r.AddAttrs(attrs...)
			if err := h.Handle(context.Background(), r); err != nil {
				t.Fatal(err)
			}
		}
		log(h, slog.LevelInfo, "plain")
		log(h, slog.LevelWarn, "quote \" back \\ nl \n tab \t nul \x00 bad \xff sep \u2028 <&> é",
			slog.String("s", "a\"b"), slog.Int("i", -7), slog.Uint64("u", 7), slog.Bool("b", true),
			slog.Duration("d", 1500*time.Millisecond), slog.Time("t", at), slog.Float64("f", 0.25),
			slog.Any("err", errors.New("boom")), slog.Any("list", []int{1, 2}), slog.Any("nil", nil),
			slog.Group("g", slog.String("x", "y"), slog.Group("empty")), slog.Group("", slog.Int("inline", 1)),
			slog.String("", "dropped"))
		log(h.WithAttrs([]slog.Attr{slog.String("svc", "mcp")}), slog.LevelDebug, "with")
		log(h.WithGroup("req").WithAttrs([]slog.Attr{slog.Int("id", 1)}), slog.LevelError, "grouped", slog.String("k", "v"))
		log(h, slog.LevelInfo+2, "odd level")
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("sink wrote\n%s\nslog wrote\n%s", got.String(), want.String())
	}
}

// A JSONSink holds records until its interval passes, Flush or Close; a
// record that fills its buffer is written at once, with those before it;
// after Close records are written at once.
func TestJSONSinkBuffers(t *testing.T) {
	t.Parallel()
	var out logBuffer
	sink := middleware.NewJSONSink(&out, &middleware.JSONSinkOptions{Interval: time.Hour, Buffer: 200})
	l := slog.New(sink)
	l.Info("one")
	if out.String() != "" {
		t.Fatalf("written before the interval: %q", out.String())
	}
	if err := sink.Flush(); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("after Flush: %q %v", out.String(), err)
	}
	l.Info("two")
	l.Info(strings.Repeat("x", 200)) // fills the buffer
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("a full buffer was not written: %d lines", n)
	}
	l.Info("three")
	if err := sink.Close(); err != nil || strings.Count(out.String(), "\n") != 4 {
		t.Fatalf("after Close: %q %v", out.String(), err)
	}
	l.Info("four")
	if strings.Count(out.String(), "\n") != 5 {
		t.Fatalf("after Close a record waited: %q", out.String())
	}
	if err := sink.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A write error is kept and returned by Flush and Close.
func TestJSONSinkWriteError(t *testing.T) {
	t.Parallel()
	sink := middleware.NewJSONSink(failingWriter{}, &middleware.JSONSinkOptions{Interval: time.Hour})
	slog.New(sink).Info("lost")
	if err := sink.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush: %v", err)
	}
	if err := sink.Close(); err == nil {
		t.Error("Close forgot the error")
	}
}

// The access log writes the same records through a JSONSink as through
// slog's JSON handler, in both eras.
func TestAccessLogThroughSink(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		var viaSlog, viaSink logBuffer
		sink := middleware.NewJSONSink(&viaSink, &middleware.JSONSinkOptions{Interval: time.Hour})
		for _, l := range []*slog.Logger{viaSlog.logger().With("svc", "mcp"), slog.New(sink).With("svc", "mcp")} {
			clk := newClock()
			tick := func() time.Time { clk.Advance(5 * time.Millisecond); return clk.Now() }
			srv := sake.MustNew(secretive{}, middleware.AccessLog{Logger: l, Clock: tick, RecordArguments: []string{"refuse"}}.Option(), sake.Logger(quiet))
			c := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("alice"), saketest.ClientID("app"))...)
			_, _ = c.CallTool("lookup", map[string]any{"text": "secret-argument"})
			_, _ = c.CallTool("refuse", map[string]any{"text": "x"})
			_, _ = c.CallTool("nope", nil)
			_, _ = c.ListTools()
		}
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		want, got := viaSlog.records(t), viaSink.records(t)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("through the sink:\n%v\nthrough slog:\n%v", got, want)
		}
	})
}

// A JSONSink writes record times as slog.JSONHandler does, whichever
// second it wrote last: a second again, a whole second, another zone; and
// a year outside 0 to 9999, after one inside, as RFC 3339 would write it
// (where slog writes an error into the string).
func TestJSONSinkTimesMatchSlog(t *testing.T) {
	t.Parallel()
	var want, got logBuffer
	sink := middleware.NewJSONSink(&got, nil)
	zone := time.FixedZone("x", -5400)
	times := []time.Time{
		time.Date(2026, 7, 28, 12, 0, 0, 120000000, time.UTC),
		time.Date(2026, 7, 28, 12, 0, 0, 999999999, time.UTC),
		time.Date(2026, 7, 28, 12, 0, 1, 0, time.UTC),
		time.Date(2026, 7, 28, 12, 0, 1, 5, zone),
		time.Date(9999, 12, 31, 23, 59, 59, 999, time.UTC),
		time.Date(2026, 7, 28, 12, 0, 1, 7, zone),
	}
	for _, h := range []slog.Handler{slog.NewJSONHandler(&want, nil), sink} {
		for _, at := range times {
			if err := h.Handle(context.Background(), slog.NewRecord(at, slog.LevelInfo, "m", 0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sink.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("sink wrote\n%s\nslog wrote\n%s", got.String(), want.String())
	}
	for _, at := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC)} {
		_ = sink.Handle(context.Background(), slog.NewRecord(times[0], slog.LevelInfo, "m", 0))
		_ = sink.Handle(context.Background(), slog.NewRecord(at, slog.LevelInfo, "m", 0))
		if err := sink.Flush(); err != nil {
			t.Fatal(err)
		}
		if line := `{"time":"` + at.Format(time.RFC3339Nano) + `","level":"INFO","msg":"m"}`; !strings.HasSuffix(got.String(), line+"\n") {
			t.Errorf("year %d: sink wrote\n%s\nwant it to end with\n%s", at.Year(), got.String(), line)
		}
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
}
