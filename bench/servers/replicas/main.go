// Command replicas runs N replicas of the sake echo server on one
// PostgreSQL database behind a round-robin reverse proxy, for the load
// benchmark to compare with one process (-n 1 is one replica behind the
// same proxy, so the proxy's own cost is on both sides of the ratio).
//
//	replicas -http 127.0.0.1:8080 -n 2 -postgres postgres://...   # URL from SAKE_POSTGRES_URL by default
//	replicas -http 127.0.0.1:8080 -n 1 -no-database               # the proxy's own cost
//
// With -cpuprofile PREFIX (or SAKE_REPLICAS_CPUPROFILE, for runs the load
// benchmark starts) each replica writes its CPU profile to PREFIX-N.pprof.
//
// Streamable HTTP only. The replicas are the sake binary beside this one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "replicas:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("http", "", "serve the proxy at ADDR (required: Streamable HTTP only)")
	n := flag.Int("n", 2, "how many replicas")
	pg := flag.String("postgres", os.Getenv("SAKE_POSTGRES_URL"), "the replicas' database (default $SAKE_POSTGRES_URL)")
	noDB := flag.Bool("no-database", false, "run one plain process (no database) behind the proxy, to measure the proxy alone")
	prof := flag.String("cpuprofile", os.Getenv("SAKE_REPLICAS_CPUPROFILE"), "write each replica's CPU profile to `PREFIX`-N.pprof when it stops (default $SAKE_REPLICAS_CPUPROFILE)")
	flag.Parse()
	if *noDB && *n != 1 {
		return errors.New("-no-database runs exactly one process (-n 1): replicas without a shared database cannot share sessions")
	}
	if *addr == "" || (*pg == "" && !*noDB) || *n < 1 {
		return errors.New("needs -http ADDR, -n >= 1 and a database (-postgres or SAKE_POSTGRES_URL; scripts/postgres.sh starts one)")
	}
	bin := filepath.Join(filepath.Dir(os.Args[0]), "sake")
	var backends []*url.URL
	var children []*exec.Cmd
	defer func() {
		for _, c := range children {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range children {
			_ = c.Wait()
		}
	}()
	for i := range *n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		a := ln.Addr().String()
		ln.Close()
		args := []string{"-http", a}
		if !*noDB {
			args = append(args, "-postgres", *pg)
		}
		if *prof != "" {
			args = append(args, "-cpuprofile", fmt.Sprintf("%s-%d.pprof", *prof, i+1))
		}
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		children = append(children, cmd)
		if err := waitListening(a); err != nil {
			return err
		}
		backends = append(backends, &url.URL{Scheme: "http", Host: a})
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(backends[(next.Add(1)-1)%uint64(len(backends))])
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		Transport: &http.Transport{
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 512,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
	}
	hs := &http.Server{Addr: *addr, Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

// waitListening waits until something accepts connections at addr.
func waitListening(addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no replica listens at %s", addr)
}
