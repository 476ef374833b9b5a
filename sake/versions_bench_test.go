package sake_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// BenchmarkDispatchToolsCallVersion is BenchmarkDispatchToolsCall asking
// for the older of two versions of the tool in _meta.
func BenchmarkDispatchToolsCallVersion(b *testing.B) {
	s := sake.MustNew(nil)
	for _, v := range []string{"1.0", "2.0"} {
		def := sake.NewTypedTool("echo", func(_ *sake.Context, a benchArgs) (string, error) { return a.Text, nil }).Version(v)
		if err := s.AddTool(def); err != nil {
			b.Fatal(err)
		}
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.github.sakemcp/version":"1.0"},"name":"echo","arguments":{"text":"hello"}}}`)
	in := &sake.Inbound{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}

// BenchmarkPublishVersions measures the server publishing 1,000 tools of
// three versions each after a change of its rules.
func BenchmarkPublishVersions(b *testing.B) {
	s := sake.MustNew(nil)
	var defs []*sake.ToolDef
	for i := range 1000 {
		for _, v := range []string{"1.0", "2.0", "3.0"} {
			defs = append(defs, sake.NewTypedTool(fmt.Sprintf("tool_%d", i), func(_ *sake.Context, a benchArgs) (string, error) { return a.Text, nil }).Version(v))
		}
	}
	if err := s.AddTool(defs...); err != nil {
		b.Fatal(err)
	}
	ranges := []string{">=2", "<3"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.FilterVersions(sake.VersionFilter{Range: ranges[i%2]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
