// Command quickstart is a small MCP server built with Sake for Go.
//
//	go build -o bin/quickstart ./examples/quickstart
//	bin/quickstart                      # stdio (it prints how to try it on stderr)
//	bin/quickstart -http 127.0.0.1:8080 # Streamable HTTP at /mcp
//
// Over HTTP on a loopback address, browser pages from any loopback origin
// (an inspector on another port) are accepted; -allow-origin adds others
// (repeatable, or comma-separated; "*" accepts any).
package main

import (
	"context"
	"errors"
	"flag"
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
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := sake.New(&Quickstart{}, sake.Name("quickstart", "1.0.0"), sake.Logger(logger),
		sake.Instructions("Greets people, converts temperatures and tells the time."))
	if err != nil {
		logger.Error("cannot build the server", "err", err)
		os.Exit(1)
	}
	if *addr == "" {
		banner(os.Stderr)
		if err := stdio.ServeStdio(srv, stdio.Logger(logger)); err != nil {
			logger.Error("stdio", "err", err)
			os.Exit(1)
		}
		return
	}
	if err := serveHTTP(*addr, srv, logger, origins); err != nil {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

func serveHTTP(addr string, srv *sake.Server, logger *slog.Logger, origins []string) error {
	h := plug.New(srv, plug.Logger(logger), plug.AllowedOrigins(origins...))
	defer h.Close()
	r := chi.NewRouter()
	r.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: r, ReadHeaderTimeout: 10 * time.Second}
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
	h.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
