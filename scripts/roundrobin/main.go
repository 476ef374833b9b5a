// Command roundrobin is a plain load balancer for testing replicas: each
// request goes to the next backend in turn, with no stickiness of any kind
// (no session affinity, no cookies), and responses stream through as they
// come (Server-Sent Events included).
//
//	go run ./scripts/roundrobin -listen 127.0.0.1:8080 -to http://127.0.0.1:3001,http://127.0.0.1:3002
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to serve on")
	to := flag.String("to", "", "comma-separated backend base URLs")
	flag.Parse()
	var backends []*url.URL
	for _, raw := range strings.Split(*to, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Host == "" {
			log.Fatalf("roundrobin: -to needs backend URLs such as http://127.0.0.1:3001 (got %q)", raw)
		}
		backends = append(backends, u)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			b := backends[(next.Add(1)-1)%uint64(len(backends))]
			r.SetURL(b)
			r.Out.Host = r.In.Host // the backends check Host as they would behind a real balancer
		},
		FlushInterval: -1,
		Transport: &http.Transport{
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// Enough to tell which exchange failed, and where it went.
			log.Printf("roundrobin: %s %s to %s (Mcp-Method %q, session %q): %v",
				r.Method, r.URL.Path, r.URL.Host, r.Header.Get("Mcp-Method"), short(r.Header.Get("Mcp-Session-Id")), err)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	srv := &http.Server{Handler: buffered(proxy), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("roundrobin: http://%s -> %v", ln.Addr(), *to)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// maxBody bounds a request body the proxy holds before forwarding it.
const maxBody = 16 << 20

// buffered reads a request's whole body before next forwards it, so the
// request goes to the backend in one piece with its length known: the
// backend connection is never left half-written by a client that stalls
// or goes away, and a request whose connection turns out to be closed
// before any of it was written can be sent again on a fresh one.
func buffered(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				http.Error(w, "roundrobin: reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
			r.TransferEncoding = nil
		}
		next.ServeHTTP(w, r)
	})
}

// short returns the start of a session id: enough to match log lines.
func short(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}
