// Command gateway is the front of the gateway benchmark: it starts the
// benchmark's sake echo server (the binary named by -upstream, by default
// the sake next to this one) and puts one hop in front of it.
//
//	gateway -mode revproxy -http ADDR  # net/http/httputil.ReverseProxy, pooled: the reference hop
//	gateway -mode url -http ADDR       # sake/gateway with a url entry to the echo server over HTTP
//	gateway -mode stdio -http ADDR     # sake/gateway with a command entry: the echo server as a stdio child
//	gateway -mode stdio                # the same, the gateway itself served over stdio
//	gateway -mode relay [-http ADDR]   # a line relay to the echo server as a stdio child: the ceiling of any stdio hop
//
// The entry is merged (namespace ""), so the tool keeps its name, echo, and
// the load generator drives every mode alike. With -cpuprofile FILE it
// records a CPU profile of the front process until it stops (so does
// GATEWAY_BENCH_PROFILE=FILE in its environment), and with
// GATEWAY_BENCH_TRACE=FILE an execution trace (go tool trace), with
// GATEWAY_BENCH_MEMPROFILE=FILE its allocations (go tool pprof
// -sample_index=alloc_objects). With
// GATEWAY_BENCH_TIMEWAIT=FILE in its environment it appends to FILE, when
// it stops, how many sockets to the upstream port are left in TIME-WAIT
// (connections that were not reused).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func main() {
	mode := flag.String("mode", "url", "revproxy, url, stdio or relay")
	addr := flag.String("http", "", "serve Streamable HTTP at ADDR/mcp instead of stdio")
	upstream := flag.String("upstream", "", "the echo server binary (default: sake next to this binary)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of this process to `FILE` when it stops")
	flag.Parse()
	if *cpuprofile == "" {
		*cpuprofile = os.Getenv("GATEWAY_BENCH_PROFILE")
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *upstream == "" {
		self, err := os.Executable()
		if err != nil {
			fatal(err)
		}
		*upstream = filepath.Join(filepath.Dir(self), "sake")
	}
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
	if file := os.Getenv("GATEWAY_BENCH_MEMPROFILE"); file != "" {
		defer func() {
			f, err := os.Create(file)
			if err != nil {
				fatal(err)
			}
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			_ = f.Close()
		}()
	}
	if file := os.Getenv("GATEWAY_BENCH_TRACE"); file != "" {
		f, err := os.Create(file)
		if err != nil {
			fatal(err)
		}
		if err := trace.Start(f); err != nil {
			fatal(err)
		}
		defer func() {
			trace.Stop()
			_ = f.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var upAddr string
	if *mode == "relay" && *addr == "" {
		relayStdio(*upstream)
		return
	}
	if *mode != "stdio" && *mode != "relay" {
		var child *exec.Cmd
		var err error
		upAddr, child, err = startHTTPUpstream(ctx, *upstream)
		if err != nil {
			fatal(err)
		}
		defer func() {
			_ = child.Process.Signal(syscall.SIGTERM)
			_ = child.Wait()
		}()
	}
	defer reportTimeWait(upAddr)

	var handler http.Handler
	switch *mode {
	case "revproxy":
		if *addr == "" {
			fatal(errors.New("-mode revproxy serves HTTP only: give -http"))
		}
		target, _ := url.Parse("http://" + upAddr)
		rp := httputil.NewSingleHostReverseProxy(target)
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 1024, 1024
		rp.Transport = tr
		rp.ErrorLog = nil
		handler = rp
	case "relay":
		handler = newHTTPRelay(*upstream)
	case "url", "stdio":
		entry := gateway.Entry{Namespace: new(string)}
		if *mode == "url" {
			entry.URL = "http://" + upAddr + "/mcp"
		} else {
			entry.Command = *upstream
		}
		g, err := gateway.New(ctx, &gateway.Config{Servers: map[string]gateway.Entry{"echo": entry}},
			gateway.Logger(logger), gateway.ServerOptions(sake.Name("sake-gateway", "1.0.0")))
		if err != nil {
			fatal(err)
		}
		defer g.Close()
		if st := g.Status(); len(st) != 1 || !st[0].Connected {
			fatal(fmt.Errorf("the echo server is not connected: %+v", st))
		}
		if *addr == "" {
			if err := stdio.ServeStdio(g.Server(), stdio.Logger(logger)); err != nil {
				logger.Error("gateway", "err", err)
			}
			return
		}
		ph := plug.New(g.Server(), plug.Logger(logger))
		defer ph.Close()
		handler = ph
	default:
		fatal(fmt.Errorf("unknown -mode %q: revproxy, url, stdio or relay", *mode))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	hs := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("gateway", "err", err)
	}
}

// startHTTPUpstream starts the echo server on a free loopback port and
// waits until it accepts connections.
func startHTTPUpstream(ctx context.Context, bin string) (string, *exec.Cmd, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	_ = l.Close()
	cmd := exec.Command(bin, "-http", addr)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return addr, cmd, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	return "", nil, fmt.Errorf("the echo server did not listen on %s", addr)
}

// reportTimeWait appends the TIME-WAIT sockets to upAddr's port to the
// file GATEWAY_BENCH_TIMEWAIT names.
func reportTimeWait(upAddr string) {
	file := os.Getenv("GATEWAY_BENCH_TIMEWAIT")
	if file == "" || upAddr == "" {
		return
	}
	_, portStr, _ := net.SplitHostPort(upAddr)
	port, _ := strconv.Atoi(portStr)
	n := 0
	if f, err := os.Open("/proc/net/tcp"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "06" { // 06: TIME_WAIT
				continue
			}
			// Either end may be the upstream's port.
			for _, a := range fields[1:3] {
				if i := strings.IndexByte(a, ':'); i >= 0 {
					if p, err := strconv.ParseInt(a[i+1:], 16, 32); err == nil && int(p) == port {
						n++
						break
					}
				}
			}
		}
		_ = f.Close()
	}
	out, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer out.Close()
	fmt.Fprintf(out, "%s upstream %s: %d sockets in TIME-WAIT\n", strings.Join(os.Args[1:], " "), upAddr, n)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gateway:", err)
	os.Exit(1)
}
