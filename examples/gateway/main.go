// Command gateway serves several MCP servers as one: the servers of an
// mcpServers configuration (the JSON Claude Desktop, Cursor and VS Code
// read), each mounted under its key (or its "namespace"; "" merges), over
// Streamable HTTP at /mcp with -http, else over stdio. A server that
// dies is restarted (command) or reconnected (url) with backoff; its
// tools leave the lists meanwhile, and the others go on serving. Each
// server is reached with the credentials of its entry (headers), never
// the gateway's callers'.
//
//	go build -o /tmp/everything ./examples/everything && /tmp/everything -http 127.0.0.1:3001 &
//	go build -o /tmp/quickstart ./examples/quickstart
//	go run ./examples/gateway -config examples/gateway/example.json -http 127.0.0.1:3200
//
// scripts/gateway-conformance.sh runs the conformance suite through it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func main() {
	configPath := flag.String("config", "", "the mcpServers configuration file (JSON)")
	addr := flag.String("http", "", "serve Streamable HTTP on this address at /mcp instead of stdio")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *configPath == "" {
		fmt.Fprintln(os.Stderr, "usage: gateway -config FILE [-http ADDR]")
		os.Exit(2)
	}
	if err := run(*configPath, *addr, logger); err != nil {
		logger.Error("gateway", "err", err)
		os.Exit(1)
	}
}

func run(configPath, addr string, logger *slog.Logger) error {
	cfg, err := gateway.LoadConfig(configPath)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g, err := gateway.New(ctx, cfg, gateway.Logger(logger),
		gateway.ServerOptions(sake.Name("sake-gateway", "1.0.0")))
	if err != nil {
		return err
	}
	defer g.Close()
	for _, s := range g.Status() {
		logger.Info("remote", "server", s.Key, "namespace", s.Namespace, "connected", s.Connected, "err", s.Err)
	}
	if addr == "" {
		return stdio.ServeStdio(g.Server(), stdio.Logger(logger))
	}
	ph := plug.New(g.Server(), plug.Logger(logger))
	defer ph.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", ph)
	hs := newHTTPServer(addr, mux)
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	logger.Info("serving", "url", "http://"+addr+"/mcp")
	if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

// The HTTP server's bounds, as in examples/production: a client that is
// slow to send its headers (slowloris) or sits idle is cut off, and
// headers are bounded; plug bounds the bodies itself. There is no
// WriteTimeout: it would cut the SSE streams that last.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// newHTTPServer is the gateway's HTTP server on addr.
func newHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
}
