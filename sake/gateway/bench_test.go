package gateway_test

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
)

// BenchmarkGatewayCall measures a tools/call through the gateway, its
// caller in memory, to a url entry (the remote in this process, over
// loopback HTTP) and to a stdio child (this test binary), in both eras.
func BenchmarkGatewayCall(b *testing.B) {
	remote := sake.MustNew(nil, sake.Name("echo", "1.0.0"))
	_ = remote.AddTool(sake.NewTool("greet", func(*sake.Context) (string, error) { return "hello from stdio", nil }))
	ph := plug.New(remote)
	ts := httptest.NewServer(ph)
	defer func() { ts.Close(); ph.Close() }()
	for _, entry := range []struct{ name, config string }{
		{"url", fmt.Sprintf(`{"url": %q}`, ts.URL+"/mcp")},
		{"stdio", stdioEntry()},
	} {
		cfg, err := gateway.ParseConfig([]byte(fmt.Sprintf(`{"mcpServers": {"qs": %s}}`, entry.config)))
		if err != nil {
			b.Fatal(err)
		}
		g, err := gateway.New(b.Context(), cfg, gateway.HealthCheck(time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		for _, era := range []struct {
			name string
			opts []client.Option
		}{{"modern", nil}, {"legacy", []client.Option{client.ProtocolVersion("2025-11-25")}}} {
			b.Run(entry.name+"/"+era.name, func(b *testing.B) {
				c, err := client.Connect(b.Context(), memory.Transport(g.Server()), era.opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if res, err := c.CallTool(b.Context(), "qs_greet", nil); err != nil || res.Text() != "hello from stdio" {
							b.Fatal(res, err)
						}
					}
				})
			})
		}
		_ = g.Close()
	}
}
