// Command production is the benchmark's echo server with the middleware
// stack of examples/production in front of it: a rate limit per caller,
// error masking, the result cache (passing: echo is not read-only), tool
// limits (a timeout and concurrency caps), a result cap, and an access
// log writing one JSON line per request through a middleware.JSONSink.
// With -bare it is the same binary and tool without any of them: the
// production path's ratio is this server's throughput over the bare one's.
//
//	production                         # stdio, the whole stack
//	production -bare                   # stdio, no middleware
//	production -http 127.0.0.1:8080    # Streamable HTTP at /mcp, both eras
//
// The limits are those of examples/production, raised where the
// benchmark's load would be refused: the benchmark measures what the
// checks cost, not what they refuse. Every caller of the benchmark is one
// anonymous subject (its address over HTTP), so the per-subject cap
// allows as many calls as the server-wide one, and the rate limit is far
// above what one machine sends. The access log goes to -access-log (a file,
// truncated at start; stderr when empty). PRODUCTION_CPUPROFILE=FILE in the
// environment is -cpuprofile FILE, so that a profile can be taken of a
// server the load generator starts.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// Echo is the server's implementation: its one method is the echo tool.
type Echo struct{}

// EchoArgs is the echo tool's input.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"description=text to echo"`
}

// Echo returns the text it was given.
func (Echo) Echo(_ context.Context, a EchoArgs) (string, error) { return a.Text, nil }

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	bare := flag.Bool("bare", false, "serve without any middleware")
	accessLog := flag.String("access-log", "", "write the access log to `FILE` (truncated); stderr when empty")
	cpuprofile := flag.String("cpuprofile", os.Getenv("PRODUCTION_CPUPROFILE"), "write a CPU profile to `FILE` when the server stops (default $PRODUCTION_CPUPROFILE)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
		// A stdio server is stopped by a signal: the profile is written
		// all the same.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			pprof.StopCPUProfile()
			_ = f.Close()
			os.Exit(0)
		}()
	}

	opts := []sake.Option{sake.Name("sake-echo", "1.0.0"), sake.Logger(logger)}
	if !*bare {
		out := os.Stderr
		if *accessLog != "" {
			f, err := os.Create(*accessLog)
			if err != nil {
				fatal(err)
			}
			defer f.Close()
			out = f
		}
		sink := middleware.NewJSONSink(out, nil)
		defer sink.Close()
		stack, err := productionStack(logger)
		if err != nil {
			fatal(err)
		}
		opts = append(opts, sake.Use(stack...), middleware.AccessLog{Logger: slog.New(sink)}.Option())
	}
	srv, err := sake.New(Echo{}, opts...)
	if err != nil {
		fatal(err)
	}
	if *addr == "" {
		err = stdio.ServeStdio(srv, stdio.Logger(logger))
	} else {
		err = serveHTTP(*addr, srv, logger)
	}
	if err != nil {
		logger.Error("serve", "err", err)
	}
}

// productionStack is the middleware of examples/production, in its order:
// rate limits first, then error masking, the cache, the tool limits, and
// the result cap nearest the tools.
func productionStack(logger *slog.Logger) ([]sake.Middleware, error) {
	rl, err := middleware.NewRateLimiter([]middleware.Limit{
		{Name: "calls", Rate: 1_000_000, Methods: []string{"tools/call"}},
	}, middleware.Logger(logger))
	if err != nil {
		return nil, err
	}
	cache, err := middleware.Cache{TTL: time.Minute}.Middleware()
	if err != nil {
		return nil, err
	}
	limits, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: 30 * time.Second, MaxConcurrent: 256, MaxPerSubject: 256, Queue: 64})
	if err != nil {
		return nil, err
	}
	return []sake.Middleware{rl.Middleware(), middleware.MaskErrors(logger), cache, limits,
		middleware.ResultCap{MaxBytes: 1 << 20}.Middleware()}, nil
}

// serveHTTP serves srv at addr/mcp until SIGINT or SIGTERM, with the
// timeouts of examples/production.
func serveHTTP(addr string, srv *sake.Server, logger *slog.Logger) error {
	h := plug.New(srv, plug.Logger(logger))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	_ = srv.Shutdown(context.Background())
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "production:", err)
	os.Exit(1)
}
