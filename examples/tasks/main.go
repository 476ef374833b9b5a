// Command tasks serves an export that runs as a task.
//
//	go run ./examples/tasks -http 127.0.0.1:8080   # Streamable HTTP at /mcp
//	go run ./examples/tasks                        # stdio
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
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
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	tm := tasks.New(tasks.Logger(logger), tasks.MaxRunning(8))
	srv, err := sake.New(&Exports{Step: 50 * time.Millisecond}, sake.Name("exports", "1.0.0"), sake.Logger(logger), sake.Tasks(tm))
	if err != nil {
		logger.Error("server", "err", err)
		os.Exit(1)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tm.Shutdown(ctx)
	}()
	if *addr == "" {
		if err := stdio.ServeStdio(srv, stdio.Logger(logger)); err != nil {
			logger.Error("stdio", "err", err)
		}
		return
	}
	h := plug.New(srv, plug.Logger(logger), plug.AllowedOrigins(strings.Split(*origins, ",")...))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	// ReadHeaderTimeout and IdleTimeout bound slow and idle clients; plug
	// bounds body reads itself (plug.BodyReadTimeout). No WriteTimeout: it
	// would cut SSE streams (GET streams, long tool calls) mid-response.
	hs := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
		h.Close()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	logger.Info("serving MCP", "url", "http://"+*addr+"/mcp")
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("http", "err", err)
	}
}
