// Command sake is the benchmark's echo server built with Sake for Go: the
// tool echo returns its text argument as a text content, and echo_task
// does the same as a task (for the tasks workload).
//
//	sake                       # stdio
//	sake -http 127.0.0.1:8080  # Streamable HTTP at /mcp, both eras
//	sake -http ADDR -postgres URL  # one of several replicas on one database
//
// One process serves both protocol eras on either transport. With
// -cpuprofile FILE it records a CPU profile from start until it stops
// (SIGINT, SIGTERM, or the end of stdin) and writes it to FILE.
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

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// Echo is the server's implementation: its one method is the echo tool.
type Echo struct{}

// EchoArgs is the echo tool's input.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"description=text to echo"`
}

// Echo returns the text it was given.
func (Echo) Echo(_ context.Context, a EchoArgs) (string, error) { return a.Text, nil }

// EchoTask returns the text it was given, run as a task.
func (Echo) EchoTask(_ context.Context, a EchoArgs) (string, error) { return a.Text, nil }

// Declare makes echo_task a task tool; clients poll it at once.
func (Echo) Declare(d *sake.Declarations) {
	d.Tool("EchoTask").Name("echo_task").Description("Echoes its text, as a task.").Task(sake.TaskRequired)
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `FILE` when the server stops")
	pgURL := flag.String("postgres", "", "run as one of several replicas on this PostgreSQL database")
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
	}

	opts := []sake.Option{sake.Name("sake-echo", "1.0.0"), sake.Logger(logger)}
	if *pgURL != "" {
		pool, err := pgxpool.New(context.Background(), *pgURL)
		if err != nil {
			fatal(err)
		}
		replica, err := pgreplica.Open(context.Background(), pool, pgreplica.Logger(logger))
		if err != nil {
			fatal(err)
		}
		defer replica.Close(context.Background()) //nolint:errcheck // nothing runs as a task here
		opts = append(opts, replica.Options()...)
	} else {
		tm := tasks.New(tasks.Logger(logger))
		defer tm.Shutdown(context.Background()) //nolint:errcheck // its tasks end at once
		opts = append(opts, sake.Tasks(tm))
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

// serveHTTP serves srv at addr/mcp until SIGINT or SIGTERM.
func serveHTTP(addr string, srv *sake.Server, logger *slog.Logger) error {
	h := plug.New(srv, plug.Logger(logger))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
	fmt.Fprintln(os.Stderr, "sake:", err)
	os.Exit(1)
}
