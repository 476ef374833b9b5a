// Command quickstart is a small MCP server built with Sake for Go.
//
//	go build -o bin/quickstart ./examples/quickstart
//	bin/quickstart                      # stdio (it prints how to try it on stderr)
//	bin/quickstart -http 127.0.0.1:8080 # Streamable HTTP at /mcp
//
// Over HTTP on a loopback address, browser pages from any loopback origin
// (an inspector on another port) are accepted; -allow-origin adds others
// (repeatable, or comma-separated; "*" accepts any).
//
// It depends on sake, plug, stdio and chi only, so that it builds in
// seconds; examples/production shows OpenTelemetry (-otlp).
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
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (for example 127.0.0.1:8080) instead of stdio")
	var origins originList
	flag.Var(&origins, "allow-origin", "a browser origin to accept over HTTP besides loopback ones (scheme://host[:port]; repeatable)")
	flag.Parse()
	if err := run(*addr, origins); err != nil {
		slog.Error("quickstart", "err", err)
		os.Exit(1)
	}
}

// run serves until the input ends (stdio) or a signal.
func run(addr string, origins []string) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := newServer(logger)
	if err != nil {
		return fmt.Errorf("cannot build the server: %w", err)
	}
	if addr == "" {
		banner(os.Stderr)
		return stdio.ServeStdio(srv, stdio.Logger(logger))
	}
	return serveHTTP(addr, srv, logger, origins)
}

// newServer builds the quickstart server.
func newServer(logger *slog.Logger) (*sake.Server, error) {
	return sake.New(&Quickstart{}, sake.Name("quickstart", "1.0.0"), sake.Logger(logger),
		sake.Instructions("Greets people, converts temperatures and tells the time."))
}

// handler is the HTTP handler of the server at /mcp.
func handler(srv *sake.Server, logger *slog.Logger, origins []string) (http.Handler, func()) {
	h := plug.New(srv, plug.Logger(logger), plug.AllowedOrigins(origins...))
	r := chi.NewRouter()
	r.Handle("/mcp", h)
	return r, h.Close
}

func serveHTTP(addr string, srv *sake.Server, logger *slog.Logger, origins []string) error {
	r, closeHandler := handler(srv, logger, origins)
	defer closeHandler()
	// ReadHeaderTimeout and IdleTimeout bound slow and idle clients; plug
	// bounds body reads itself (plug.BodyReadTimeout). No WriteTimeout: it
	// would cut SSE streams (GET streams, long tool calls) mid-response.
	hs := &http.Server{Addr: addr, Handler: r, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	logger.Info("serving MCP", "url", "http://"+addr+"/mcp")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	_ = srv.Shutdown(context.Background())
	closeHandler()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
