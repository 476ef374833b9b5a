package gateway

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// BenchmarkObserve measures what the gateway's counting hook adds to a
// tools/call: finding the entry by namespace among 64 and counting.
func BenchmarkObserve(b *testing.B) {
	g := &Gateway{}
	for i := range MaxEntries {
		key := "server" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		g.remotes = append(g.remotes, &remote{key: key, ns: key})
	}
	g.reroute()
	req := &sake.Request{Method: "tools/call", Params: &sake.Params{Name: "serverzb_lookup"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, done := g.observe(ctx, req)
		done(sake.RequestDone{})
	}
	if g.remotes[51].stats.calls.Load() == 0 {
		b.Fatal("the call was not counted on its entry")
	}
}
