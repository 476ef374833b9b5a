package middleware_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
)

var benchCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}}`)

// benchServer measures a modern tools/call through the dispatcher with the
// given options.
func benchServer(b *testing.B, opts ...sake.Option) {
	s := sake.MustNew(tools{}, append([]sake.Option{sake.Logger(quiet)}, opts...)...)
	in := &sake.Inbound{Transport: "http", RemoteAddr: "192.0.2.1", Identity: &sake.Identity{Subject: "alice", ClientID: "app"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, benchCall, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
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

// BenchmarkAccessLog is a call with the access log on, written by a JSON
// handler to nowhere.
func BenchmarkAccessLog(b *testing.B) {
	l := slog.New(slog.NewJSONHandler(io.Discard, nil))
	benchServer(b, middleware.AccessLog{Logger: l}.Option())
}

// BenchmarkMaskErrors is a call that succeeds through MaskErrors.
func BenchmarkMaskErrors(b *testing.B) {
	benchServer(b, sake.Use(middleware.MaskErrors(quiet)))
}

// BenchmarkAllOn is a call through every middleware of the package, as
// examples/production wires them, with in-memory stores; "logged" adds the
// access log, written by a JSON handler to nowhere. Compare with
// BenchmarkToolsCall.
func BenchmarkAllOn(b *testing.B) {
	for _, logged := range []bool{false, true} {
		name := "unlogged"
		if logged {
			name = "logged"
		}
		b.Run(name, func(b *testing.B) {
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
			l := slog.New(slog.NewJSONHandler(io.Discard, nil))
			opts := []sake.Option{sake.Use(rl.Middleware(), middleware.MaskErrors(l), limits, middleware.ResultCap{}.Middleware())}
			if logged {
				opts = append(opts, middleware.AccessLog{Logger: l}.Option())
			}
			benchServer(b, opts...)
		})
	}
}
