package client_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/plug"
)

// BenchmarkListToolsCache measures ListTools in memory and over HTTP
// (loopback), both eras, with and without a cache holding the list: what
// a hit saves is the request, not the decoding of the list.
func BenchmarkListToolsCache(b *testing.B) {
	for _, via := range []string{"memory", "http"} {
		for _, e := range eras {
			for _, cached := range []bool{false, true} {
				name := via + "/" + e.Name + "/uncached"
				opts := e.Opts
				if cached {
					name = via + "/" + e.Name + "/cached"
					opts = append(opts[:len(opts):len(opts)], client.WithCache(client.NewCache(client.CacheUnhinted(time.Hour))))
				}
				b.Run(name, func(b *testing.B) {
					srv := sake.MustNew(shelf{}, sake.CacheHints(time.Hour, time.Hour, "public"))
					tr := memory.Transport(srv)
					if via == "http" {
						h := plug.New(srv)
						ts := httptest.NewServer(h)
						defer func() { ts.Close(); h.Close() }()
						tr = client.HTTP(ts.URL, ts.Client())
					}
					c, err := client.Connect(b.Context(), tr, opts...)
					if err != nil {
						b.Fatal(err)
					}
					defer c.Close()
					b.ReportAllocs()
					for b.Loop() {
						if _, err := c.ListTools(b.Context()); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
