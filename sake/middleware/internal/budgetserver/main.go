// Command budgetserver serves an echo tool over Streamable HTTP, bare or
// through the middleware of sake/middleware, for the benchmark that
// measures what the middleware costs the server's CPU (BenchmarkBudgetHTTP).
//
// It listens on a loopback port of its own, prints the endpoint's URL on
// a line of standard output, and exits when standard input closes, so it
// never outlives the benchmark that started it.
//
//	budgetserver -set bare|unlogged|sink|logged [-cpuprofile FILE]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/plug"
)

// tools is the server: one small tool.
type tools struct{}

type textArgs struct {
	Text string `json:"text"`
}

// Echo returns its text.
func (tools) Echo(ctx *sake.Context, a textArgs) (string, error) { return a.Text, nil }

func main() {
	set := flag.String("set", "bare", "the middleware: bare (none), unlogged (all but the access log), sink (all, the access log through a JSONSink) or logged (all, through slog's JSON handler)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "budgetserver:", err)
			os.Exit(1)
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	if err := run(*set); err != nil {
		fmt.Fprintln(os.Stderr, "budgetserver:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(set string) error {
	quiet := slog.New(slog.DiscardHandler)
	opts, closeSink, err := middlewareSet(set)
	if err != nil {
		return err
	}
	defer closeSink()
	srv, err := sake.New(tools{}, append([]sake.Option{sake.Logger(quiet)}, opts...)...)
	if err != nil {
		return err
	}
	// Every caller is one machine client acting for one person, as the
	// in-process benchmark's are.
	alice := &sake.Identity{Subject: "alice", ClientID: "app"}
	h := plug.New(srv, plug.Logger(quiet), plug.Identify(func(*http.Request) (*sake.Identity, error) { return alice, nil }))
	defer h.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("http://%s/\n", ln.Addr())
	// Standard input closing is the signal to stop.
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	return hs.Close()
}

// middlewareSet is the options of a set and a function that flushes its
// access log, if any.
func middlewareSet(set string) ([]sake.Option, func(), error) {
	none := func() {}
	if set == "bare" {
		return nil, none, nil
	}
	rl, err := middleware.NewRateLimiter([]middleware.Limit{
		{Rate: 100_000_000, Methods: []string{"tools/call"}},
		{Name: "server", Rate: 100_000_000, Key: middleware.Everyone},
	})
	if err != nil {
		return nil, none, err
	}
	limits, err := middleware.ToolLimits(middleware.ToolLimit{Timeout: time.Minute, MaxConcurrent: 64, MaxPerSubject: 8})
	if err != nil {
		return nil, none, err
	}
	cache, err := middleware.Cache{}.Middleware()
	if err != nil {
		return nil, none, err
	}
	l := slog.New(slog.NewJSONHandler(io.Discard, nil))
	closeSink := none
	switch set {
	case "unlogged", "logged":
	case "sink":
		sink := middleware.NewJSONSink(io.Discard, nil)
		closeSink = func() { _ = sink.Close() }
		l = slog.New(sink)
	default:
		return nil, none, fmt.Errorf("unknown set %q", set)
	}
	opts := []sake.Option{sake.Use(rl.Middleware(), middleware.MaskErrors(l), cache, limits, middleware.ResultCap{}.Middleware())}
	if set != "unlogged" {
		opts = append(opts, middleware.AccessLog{Logger: l}.Option())
	}
	return opts, closeSink, nil
}
