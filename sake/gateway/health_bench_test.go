package gateway

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// BenchmarkObserve measures what the gateway's counting middleware adds
// to a tools/call: finding the entry by namespace among 64 and counting.
func BenchmarkObserve(b *testing.B) {
	g := &Gateway{}
	for i := range MaxEntries {
		key := "server" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		g.remotes = append(g.remotes, &remote{key: key, ns: key})
	}
	g.reroute()
	res := &protocol.ToolResult{}
	h := g.observe(func(context.Context, *sake.Request) (any, error) { return res, nil })
	req := &sake.Request{Method: "tools/call", Params: &sake.Params{Name: "serverzb_lookup"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	if g.remotes[51].stats.calls.Load() == 0 {
		b.Fatal("the call was not counted on its entry")
	}
}
