package gateway_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
)

// BenchmarkHop measures one client's sequential tools/call over loopback
// HTTP: to the server directly, through httputil.ReverseProxy (the
// reference hop) and through a gateway's url entry, in the 2026-07-28
// era. The differences are what each hop adds to a call's latency.
func BenchmarkHop(b *testing.B) {
	remote := sake.MustNew(nil, sake.Name("echo", "1.0.0"))
	_ = remote.AddTool(sake.NewTool("greet", func(*sake.Context) (string, error) { return "hello", nil }))
	ph := plug.New(remote)
	upstream := httptest.NewServer(ph)
	defer func() { upstream.Close(); ph.Close() }()

	target, _ := url.Parse(upstream.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = gateway.NewHTTPClient(0).Transport
	revproxy := httptest.NewServer(rp)
	defer revproxy.Close()

	cfg, err := gateway.ParseConfig([]byte(fmt.Sprintf(`{"mcpServers": {"qs": {"url": %q, "namespace": ""}}}`, upstream.URL+"/mcp")))
	if err != nil {
		b.Fatal(err)
	}
	g, err := gateway.New(b.Context(), cfg, gateway.HealthCheck(time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	gph := plug.New(g.Server())
	gw := httptest.NewServer(gph)
	defer func() { gw.Close(); gph.Close() }()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`
	hc := gateway.NewHTTPClient(0)
	for _, hop := range []struct{ name, url string }{{"direct", upstream.URL}, {"revproxy", revproxy.URL}, {"gateway", gw.URL}} {
		b.Run(hop.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, hop.url+"/mcp", bytes.NewReader([]byte(body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "greet")
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(out), "hello") {
					b.Fatalf("%d %s", resp.StatusCode, out)
				}
			}
		})
	}
}
