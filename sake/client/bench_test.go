package client_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
)

// BenchmarkCallTool measures a tools/call in memory, both eras.
func BenchmarkCallTool(b *testing.B) {
	for _, e := range eras {
		b.Run(e.Name, func(b *testing.B) {
			srv := sake.MustNew(newKit())
			c, err := client.Connect(b.Context(), memory.Transport(srv), e.Opts...)
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
