package middleware_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/transport"
)

var benchCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}}`)

// benchServer measures a modern tools/call through the dispatcher with the
// given options.
func benchServer(b *testing.B, opts ...sake.Option) { benchServerOf(b, tools{}, opts...) }

// benchServerOf is benchServer for another implementation with an echo
// tool.
func benchServerOf(b *testing.B, impl any, opts ...sake.Option) {
	s := sake.MustNew(impl, append([]sake.Option{sake.Logger(quiet)}, opts...)...)
	in := &sake.Inbound{Transport: "http", RemoteAddr: "192.0.2.1", Identity: &sake.Identity{Subject: "alice", ClientID: "app"}}
	ctx := context.Background()
	b.ReportAllocs()
	start, ok := cpuTime()
	for b.Loop() {
		if r := s.Handle(ctx, benchCall, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
	if end, _ := cpuTime(); ok {
		// CPU time, unlike ns/op, does not count the time other
		// processes of a busy machine take.
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkToolsCall is the bare call every other benchmark is compared to.
func BenchmarkToolsCall(b *testing.B) { benchServer(b) }

// BenchmarkRateLimit is a call through two limits (per subject and
// server-wide) that never refuse.
func BenchmarkRateLimit(b *testing.B) {
	rl, err := middleware.NewRateLimiter([]middleware.Limit{
		{Rate: 100_000_000},
		{Name: "server", Rate: 100_000_000, Key: middleware.Everyone, Tools: []string{"echo"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	benchServer(b, sake.Use(rl.Middleware()))
}

// BenchmarkToolLimits is a call with a timeout, a concurrency cap and a
// per-subject cap.
func BenchmarkToolLimits(b *testing.B) {
	mw, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: time.Minute, MaxConcurrent: 64, MaxPerSubject: 8})
	if err != nil {
		b.Fatal(err)
	}
	benchServer(b, sake.Use(mw))
}

// BenchmarkResultCap is a call whose result is measured against the cap.
func BenchmarkResultCap(b *testing.B) {
	benchServer(b, sake.Use(middleware.ResultCap{}.Middleware()))
}

// BenchmarkAccessLog is a call with the access log on, written to nowhere
// by slog's JSON handler ("slog") or by a JSONSink ("sink").
func BenchmarkAccessLog(b *testing.B) {
	b.Run("slog", func(b *testing.B) {
		l := slog.New(slog.NewJSONHandler(io.Discard, nil))
		benchServer(b, middleware.AccessLog{Logger: l}.Option())
	})
	b.Run("sink", func(b *testing.B) {
		sink := middleware.NewJSONSink(io.Discard, nil)
		defer sink.Close()
		benchServer(b, middleware.AccessLog{Logger: slog.New(sink)}.Option())
	})
}

// readOnlyTools has a read-only echo, which the cache keeps.
type readOnlyTools struct{ tools }

func (readOnlyTools) Declare(d *sake.Declarations) { d.Tool("Echo").ReadOnly() }

// BenchmarkCache is a call through the cache: "hit" of a read-only tool
// whose result is kept, "pass" of a tool that is not read-only. Compare
// with BenchmarkToolsCall.
func BenchmarkCache(b *testing.B) {
	mw, err := middleware.Cache{}.Middleware()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("hit", func(b *testing.B) { benchServerOf(b, readOnlyTools{}, sake.Use(mw)) })
	b.Run("pass", func(b *testing.B) { benchServer(b, sake.Use(mw)) })
}

// BenchmarkMaskErrors is a call that succeeds through MaskErrors.
func BenchmarkMaskErrors(b *testing.B) {
	benchServer(b, sake.Use(middleware.MaskErrors(quiet)))
}

// allOn is every middleware of the package, as examples/production wires
// them, with in-memory stores; log is "unlogged", "logged" (the access log
// written to nowhere by slog's JSON handler) or "sink" (by a JSONSink).
func allOn(b *testing.B, log string) []sake.Option {
	rl, err := middleware.NewRateLimiter([]middleware.Limit{
		{Rate: 100_000_000, Methods: []string{"tools/call"}},
		{Name: "server", Rate: 100_000_000, Key: middleware.Everyone},
	})
	if err != nil {
		b.Fatal(err)
	}
	limits, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: time.Minute, MaxConcurrent: 64, MaxPerSubject: 8})
	if err != nil {
		b.Fatal(err)
	}
	cache, err := middleware.Cache{}.Middleware()
	if err != nil {
		b.Fatal(err)
	}
	l := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if log == "sink" {
		sink := middleware.NewJSONSink(io.Discard, nil)
		b.Cleanup(func() { _ = sink.Close() })
		l = slog.New(sink)
	}
	opts := []sake.Option{sake.Use(rl.Middleware(), middleware.MaskErrors(l), cache, limits, middleware.ResultCap{}.Middleware())}
	if log != "unlogged" {
		opts = append(opts, middleware.AccessLog{Logger: l}.Option())
	}
	return opts
}

// BenchmarkAllOn is a call through every middleware of the package (see
// allOn). The tool is not read-only, so the cache passes the call on.
// Compare with BenchmarkToolsCall, or see BenchmarkBudget.
func BenchmarkAllOn(b *testing.B) {
	for _, name := range []string{"unlogged", "logged", "sink"} {
		b.Run(name, func(b *testing.B) { benchServer(b, allOn(b, name)...) })
	}
}

// BenchmarkBudget measures what every middleware costs a call, as a
// multiple of the bare call's CPU time ("x-bare"): each iteration runs a
// block of bare calls, then a block through every middleware (allOn) or
// through one, and the metric is the median of the blocks' ratios, so
// that both sides of each ratio see the same load on a busy machine;
// "bare" against a second bare server shows the method's own spread. Run
// it with -benchtime 40x. BenchmarkBudgetHTTP measures the same over
// Streamable HTTP, by the server's CPU.
func BenchmarkBudget(b *testing.B) {
	const block = 2000
	one := func(mw func(b *testing.B) sake.Middleware) func(b *testing.B) []sake.Option {
		return func(b *testing.B) []sake.Option { return []sake.Option{sake.Use(mw(b))} }
	}
	for _, c := range []struct {
		name string
		opts func(b *testing.B) []sake.Option
	}{
		// A second bare server: the method's own spread.
		{"bare", func(*testing.B) []sake.Option { return nil }},
		{"unlogged", func(b *testing.B) []sake.Option { return allOn(b, "unlogged") }},
		{"logged", func(b *testing.B) []sake.Option { return allOn(b, "logged") }},
		{"sink", func(b *testing.B) []sake.Option { return allOn(b, "sink") }},
		// Each middleware alone.
		{"ratelimit", one(func(b *testing.B) sake.Middleware {
			rl, err := middleware.NewRateLimiter([]middleware.Limit{
				{Rate: 100_000_000, Methods: []string{"tools/call"}},
				{Name: "server", Rate: 100_000_000, Key: middleware.Everyone},
			})
			if err != nil {
				b.Fatal(err)
			}
			return rl.Middleware()
		})},
		{"mask", one(func(*testing.B) sake.Middleware { return middleware.MaskErrors(quiet) })},
		{"cache", one(func(b *testing.B) sake.Middleware {
			mw, err := middleware.Cache{}.Middleware()
			if err != nil {
				b.Fatal(err)
			}
			return mw
		})},
		{"toollimits", one(func(b *testing.B) sake.Middleware {
			mw, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: time.Minute, MaxConcurrent: 64, MaxPerSubject: 8})
			if err != nil {
				b.Fatal(err)
			}
			return mw
		})},
		{"resultcap", one(func(*testing.B) sake.Middleware { return middleware.ResultCap{}.Middleware() })},
		{"accesslog-sink", func(b *testing.B) []sake.Option {
			sink := middleware.NewJSONSink(io.Discard, nil)
			b.Cleanup(func() { _ = sink.Close() })
			return []sake.Option{middleware.AccessLog{Logger: slog.New(sink)}.Option()}
		}},
		// The same from 8 callers at once, as the benchmarks of bench/
		// call a server: the middleware's shared state is then reached
		// from every CPU.
		{"par-bare", func(*testing.B) []sake.Option { return nil }},
		{"par-unlogged", func(b *testing.B) []sake.Option { return allOn(b, "unlogged") }},
		{"par-sink", func(b *testing.B) []sake.Option { return allOn(b, "sink") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			bare := sake.MustNew(tools{}, sake.Logger(quiet))
			all := sake.MustNew(tools{}, append([]sake.Option{sake.Logger(quiet)}, c.opts(b)...)...)
			in := &sake.Inbound{Transport: "http", RemoteAddr: "192.0.2.1", Identity: &sake.Identity{Subject: "alice", ClientID: "app"}}
			ctx := context.Background()
			// Into a lent buffer, as sake/stdio and sake/plug call the
			// server.
			callers := 1
			if strings.HasPrefix(c.name, "par-") {
				callers = 8
			}
			run := func(s *sake.Server) time.Duration {
				start, ok := cpuTime()
				if !ok {
					b.Skip("no CPU clock here")
				}
				var wg sync.WaitGroup
				for range callers {
					wg.Go(func() {
						buf := make([]byte, 0, 1024)
						for range block / callers {
							if r := transport.Decode(s, benchCall, in).HandleInto(ctx, &buf); r.ErrorCode != 0 {
								b.Error(string(r.Body))
								return
							}
						}
					})
				}
				wg.Wait()
				end, _ := cpuTime()
				return end - start
			}
			run(bare)
			run(all)
			var ratios []float64
			for b.Loop() {
				base := run(bare)
				ratios = append(ratios, float64(run(all))/float64(base))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-bare")
		})
	}
}

// BenchmarkAllOnParallel is BenchmarkAllOn with calls from as many
// goroutines as the benchmark's CPUs (-cpu), as a server with several
// callers runs them: the middleware's shared state (the rate limit's
// bucket, the tool limits' gates and deadlines, the access log's buffer)
// is then reached from several CPUs at once. "bare" is the server without
// middleware.
func BenchmarkAllOnParallel(b *testing.B) {
	for _, name := range []string{"bare", "unlogged", "sink"} {
		b.Run(name, func(b *testing.B) {
			var opts []sake.Option
			if name != "bare" {
				opts = allOn(b, name)
			}
			s := sake.MustNew(tools{}, append([]sake.Option{sake.Logger(quiet)}, opts...)...)
			in := &sake.Inbound{Transport: "http", RemoteAddr: "192.0.2.1", Identity: &sake.Identity{Subject: "alice", ClientID: "app"}}
			ctx := context.Background()
			b.ReportAllocs()
			start, ok := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 0, 1024)
				for pb.Next() {
					if r := transport.Decode(s, benchCall, in).HandleInto(ctx, &buf); r.ErrorCode != 0 {
						b.Error(string(r.Body))
						return
					}
				}
			})
			if end, _ := cpuTime(); ok {
				b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
