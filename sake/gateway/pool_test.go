package gateway_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestURLEntryReusesConnections: calls to a url entry go over kept-alive
// connections, as many as run at once, not one new connection per call
// (each of which would be left in TIME-WAIT).
func TestURLEntryReusesConnections(t *testing.T) {
	const width, rounds = 8, 5
	entered := make(chan struct{}, width)
	var gate atomic.Pointer[chan struct{}]
	srv := sake.MustNew(nil, sake.Name("wide", "1.0.0"))
	if err := srv.AddTool(sake.NewTool("wait", func(*sake.Context) (string, error) {
		g := gate.Load()
		entered <- struct{}{}
		<-*g
		return "ok", nil
	})); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(srv)
	var opened atomic.Int64
	ts := httptest.NewUnstartedServer(ph)
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(func() { ts.Close(); ph.Close() })

	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"wide": {"url": %q}}}`, ts.URL+"/mcp"))
	c := saketest.Connect(t, g.Server())
	base := opened.Load() // the connection the gateway made at start
	for range rounds {
		release := make(chan struct{})
		gate.Store(&release)
		var wg sync.WaitGroup
		errs := make(chan error, width)
		for range width {
			wg.Go(func() {
				if _, err := c.CallTool("wide_wait", nil); err != nil {
					errs <- err
				}
			})
		}
		for range width {
			select {
			case <-entered: // all width calls are in flight at once
			case err := <-errs:
				t.Fatalf("a call failed before all %d were in flight: %v", width, err)
			}
		}
		close(release)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	// One more connection may carry the remote's listen stream.
	if n := opened.Load() - base; n > width+1 {
		t.Errorf("%d rounds of %d calls at once opened %d connections; want at most %d (kept alive and reused)", rounds, width, n, width+1)
	}
}

// TestURLEntrySpeaksHTTP2WhenOffered: the gateway's own client takes
// HTTP/2 from an https server that offers it.
func TestURLEntrySpeaksHTTP2WhenOffered(t *testing.T) {
	srv := sake.MustNew(nil, sake.Name("h2", "1.0.0"))
	if err := srv.AddTool(sake.NewTool("echo", func(*sake.Context) (string, error) { return "over h2", nil })); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(srv)
	var protos sync.Map
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos.Store(r.Proto, true)
		ph.ServeHTTP(w, r)
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(func() { ts.Close(); ph.Close() })
	hc := gateway.NewHTTPClient(0)
	// The test server's certificate, trusted; nothing else changed.
	hc.Transport.(*http.Transport).TLSClientConfig = ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"h2": {"url": %q}}}`, ts.URL+"/mcp"), gateway.HTTPClient(hc))
	c := saketest.Connect(t, g.Server())
	if res, err := c.CallTool("h2_echo", nil); err != nil || res.Text() != "over h2" {
		t.Fatalf("h2_echo = %v, %v", res, err)
	}
	var seen []string
	protos.Range(func(k, _ any) bool { seen = append(seen, k.(string)); return true })
	if len(seen) != 1 || seen[0] != "HTTP/2.0" {
		t.Errorf("the remote was reached over %v; want HTTP/2.0 only", seen)
	}
}

// TestNewHTTPClientWithAWrappedDefaultTransport: an application that
// wrapped http.DefaultTransport (for tracing, say) still gets a pooled
// client, not a panic.
func TestNewHTTPClientWithAWrappedDefaultTransport(t *testing.T) {
	saved := http.DefaultTransport
	http.DefaultTransport = roundTripFunc(func(r *http.Request) (*http.Response, error) { return saved.RoundTrip(r) })
	defer func() { http.DefaultTransport = saved }()
	hc := gateway.NewHTTPClient(7)
	if tr, ok := hc.Transport.(*http.Transport); !ok || tr.MaxIdleConnsPerHost != 7 || tr.Proxy == nil {
		t.Fatalf("transport = %#v", hc.Transport)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
