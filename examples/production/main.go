// Command production is an MCP server wired the way a production
// deployment wants it: rate limits per caller, per-tool timeouts and
// concurrency caps, a cap on result sizes, errors masked for clients,
// a cache of the results of read-only tools (on by default; -cache=false
// turns it off), an access log, OpenTelemetry (sake/otel, through the
// global providers), health probes and a graceful shutdown.
//
//	go run ./examples/production -http 127.0.0.1:8080 -rate-limit 10 -access-log
//
// -otlp http://127.0.0.1:4318 sends traces and metrics to an OpenTelemetry
// collector over OTLP/HTTP (to /v1/traces and /v1/metrics), and flushes
// them on exit.
//
// It serves Streamable HTTP at /mcp, /healthz and /readyz. On SIGINT or
// SIGTERM /readyz answers 503 at once; after -drain the server stops
// taking requests and waits up to -grace for the calls under way. With
// -postgres URL the rate limits are kept in PostgreSQL, so that they hold
// per caller across replicas, list changes and resource updates reach
// every replica's cache through the database, and /readyz pings it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "serve Streamable HTTP on this address")
	rate := flag.Int("rate-limit", 10, "tools/call per second per caller (0: no limit)")
	access := flag.Bool("access-log", false, "log one JSON line per request on stderr")
	cache := flag.Bool("cache", true, "keep the results of read-only tools for a minute (false: run every call)")
	timeout := flag.Duration("tool-timeout", 30*time.Second, "how long one tool call may run")
	maxResult := flag.Int("max-result", 1<<20, "the most bytes a tool result may carry")
	drain := flag.Duration("drain", 5*time.Second, "how long /readyz answers 503 before the server stops taking requests")
	grace := flag.Duration("grace", 20*time.Second, "how long the calls under way have to finish at shutdown")
	postgres := flag.String("postgres", "", "keep rate limits in this PostgreSQL database (postgres://...), shared by every replica on it")
	otlp := flag.String("otlp", "", "send traces and metrics to this OTLP/HTTP collector base URL (for example http://127.0.0.1:4318)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := config{RateLimit: *rate, AccessLog: *access, NoCache: !*cache, ToolTimeout: *timeout, MaxResult: *maxResult, Log: os.Stderr}
	var x *exporter
	if *otlp != "" {
		var err error
		if x, err = newExporter(ctx, *otlp); err != nil {
			slog.Error("production", "err", err)
			os.Exit(1)
		}
		cfg.OTel = x.options()
	}
	if *postgres != "" {
		pool, err := pgxpool.New(ctx, *postgres)
		if err != nil {
			slog.Error("production: -postgres", "err", err)
			os.Exit(1)
		}
		defer pool.Close()
		cfg.Postgres = pool
	}
	ln, err := net.Listen("tcp", *addr)
	if err == nil {
		err = serve(ctx, ln, cfg, *drain, *grace)
	}
	if x != nil {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = errors.Join(err, x.shutdown(flush))
		cancel()
	}
	if err != nil {
		slog.Error("production", "err", err)
		os.Exit(1)
	}
}

// serve serves on ln until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, ln net.Listener, cfg config, drain, grace time.Duration) error {
	a, err := newApp(cfg)
	if err != nil {
		return fmt.Errorf("cannot build the server: %w", err)
	}
	// ReadHeaderTimeout and IdleTimeout bound slow and idle clients; plug
	// bounds body reads itself. No WriteTimeout: it would cut SSE streams
	// and long tool calls mid-response (the tools' own timeouts bound
	// those).
	hs := &http.Server{Handler: a.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	a.logger.Info("serving MCP", "url", "http://"+ln.Addr().String()+"/mcp")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.logger.Info("shutting down", "drain", drain, "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), drain+grace)
	defer cancel()
	err = a.shutdown(sctx, hs, drain)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
