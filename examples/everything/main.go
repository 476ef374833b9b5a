// Command everything serves the fixture of the official MCP conformance
// suite: every tool, resource and prompt its scenarios call.
//
//	go run ./examples/everything -http 127.0.0.1:3001   # Streamable HTTP at /mcp, both eras
//	go run ./examples/everything                        # stdio
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
	"github.com/sakemcp/sake-go/sake/tasks"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address at /mcp instead of stdio")
	origins := flag.String("allow-origin", "", "browser origins to accept over HTTP besides loopback ones, comma-separated (scheme://host[:port]; \"*\" for any)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tm := tasks.New(tasks.Logger(logger))
	srv, err := sake.New(&Everything{}, sake.Name("sake-everything", "1.0.0"), sake.Logger(logger), sake.Tasks(tm))
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
	if err := serve(*addr, srv, logger, strings.Split(*origins, ",")); err != nil {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

func serve(addr string, srv *sake.Server, logger *slog.Logger, origins []string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := plug.New(srv, plug.Logger(logger), plug.AllowedOrigins(origins...))
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	logger.Warn("serving the conformance fixture", "url", "http://"+ln.Addr().String()+"/mcp")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	srv.Shutdown()
	h.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
