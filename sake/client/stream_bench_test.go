package client_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// BenchmarkCallToolStream measures a tools/call over a stdio stream (in
// memory pipes), its result left encoded as a proxy asks for it, both
// eras. The text is a few kilobytes, like a file read through a gateway.
func BenchmarkCallToolStream(b *testing.B) {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 64)
	for _, e := range eras {
		b.Run(e.Name, func(b *testing.B) {
			srv := sake.MustNew(nil, sake.Name("streamed", "1.0.0"))
			_ = srv.AddTool(sake.NewTool("read", func(*sake.Context) (string, error) { return text, nil }))
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan struct{})
			go func() {
				defer close(served)
				_ = stdio.Serve(ctx, srv, inR, outW)
			}()
			defer func() {
				cancel()
				_ = inR.Close()
				_ = outW.Close()
				<-served
			}()
			c, err := client.Connect(b.Context(), client.Stream(outR, inW), e.Opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				if res, _, err := c.StartToolEncoded(b.Context(), "read", nil); err != nil || res == nil {
					b.Fatal(res, err)
				}
			}
		})
	}
}
