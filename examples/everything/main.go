// Command everything serves the fixture of the official MCP conformance
// suite: every tool, resource and prompt its scenarios call.
//
//	go run ./examples/everything -http 127.0.0.1:3001   # Streamable HTTP at /mcp, both eras
//	go run ./examples/everything                        # stdio
//	go run ./examples/everything -http 127.0.0.1:3001 -postgres postgres://...
//	                                                    # one of several replicas on one database
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

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
	"github.com/sakemcp/sake-go/sake/tasks"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address at /mcp instead of stdio")
	origins := flag.String("allow-origin", "", "browser origins to accept over HTTP besides loopback ones, comma-separated (scheme://host[:port]; \"*\" for any)")
	pgURL := flag.String("postgres", "", "share tasks, broadcasts and the signing secret with the other replicas on this PostgreSQL database")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := []sake.Option{sake.Name("sake-everything", "1.0.0"), sake.Logger(logger), sake.Skills(skillsFS())}
	if *pgURL != "" {
		replica, err := joinReplicas(*pgURL, logger)
		if err != nil {
			logger.Error("cannot join the replicas", "err", err)
			os.Exit(1)
		}
		defer replica.Close(context.Background()) //nolint:errcheck // tasks still running are failed and logged
		opts = append(opts, replica.Options()...)
	} else {
		opts = append(opts, sake.Tasks(tasks.New(tasks.Logger(logger))))
	}
	srv, err := sake.New(&Everything{}, opts...)
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

// joinReplicas connects to the database and joins the replicas on it.
func joinReplicas(url string, logger *slog.Logger) (*pgreplica.Replica, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return pgreplica.Open(ctx, pool, pgreplica.Logger(logger))
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
	// ReadHeaderTimeout and IdleTimeout bound slow and idle clients; plug
	// bounds body reads itself (plug.BodyReadTimeout). No WriteTimeout: it
	// would cut SSE streams (GET streams, long tool calls) mid-response.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
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
	_ = srv.Shutdown(context.Background())
	h.Close()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
