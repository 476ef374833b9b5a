package proxy_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// BenchmarkProxyCallTool measures a tools/call through a proxy, in
// memory on both sides, against the same call made directly
// (BenchmarkCallTool).
func BenchmarkProxyCallTool(b *testing.B) {
	for _, e := range eras {
		b.Run(e.Name, func(b *testing.B) {
			remote, err := client.Connect(b.Context(), memory.Transport(sake.MustNew(newKit())), client.ForwardQuestions())
			if err != nil {
				b.Fatal(err)
			}
			defer remote.Close()
			proxySrv, err := proxy.New(b.Context(), remote)
			if err != nil {
				b.Fatal(err)
			}
			c, err := client.Connect(b.Context(), memory.Transport(proxySrv), e.Opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			args := map[string]string{"text": "hi"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool(b.Context(), "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
