// Command apps serves a to-do list with an MCP Apps view.
//
//	go run ./examples/apps                      # stdio
//	go run ./examples/apps -http 127.0.0.1:8080 # Streamable HTTP at /mcp
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
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := sake.New(NewTodos("Buy milk", "Write the report", "Call the plumber"), sake.Name("todos", "1.0.0"), sake.Logger(logger),
		sake.Instructions("Keeps a to-do list. show_todos shows it (with a view in hosts that render MCP Apps)."))
	if err != nil {
		logger.Error("cannot build the server", "err", err)
		os.Exit(1)
	}
	if *addr == "" {
		if err := stdio.ServeStdio(srv, stdio.Logger(logger)); err != nil {
			logger.Error("stdio", "err", err)
			os.Exit(1)
		}
		return
	}
	if err := serveHTTP(*addr, srv, logger); err != nil {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

func serveHTTP(addr string, srv *sake.Server, logger *slog.Logger) error {
	h := plug.New(srv, plug.Logger(logger))
	defer h.Close()
	r := chi.NewRouter()
	r.Handle("/mcp", h)
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
	h.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
