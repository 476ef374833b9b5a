package sake_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

type benchServer struct{}

type benchArgs struct {
	Text string `json:"text"`
}

func (benchServer) Echo(ctx *sake.Context, a benchArgs) (string, error) { return a.Text, nil }

// BenchmarkDispatchToolsCall measures the bare dispatcher answering a
// modern tools/call of a one-argument tool.
func BenchmarkDispatchToolsCall(b *testing.B) {
	s := sake.MustNew(benchServer{})
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}},"name":"echo","arguments":{"text":"hello"}}}`)
	in := &sake.Inbound{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}

// BenchmarkDispatchToolsCallLegacy is the same call in a legacy session.
func BenchmarkDispatchToolsCallLegacy(b *testing.B) {
	s := sake.MustNew(benchServer{})
	ctx := context.Background()
	r := s.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`), nil)
	in := &sake.Inbound{Session: r.Session}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}

// BenchmarkDispatchToolsList measures a cached list.
func BenchmarkDispatchToolsList(b *testing.B) {
	s := sake.MustNew(newNotes())
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s.Handle(ctx, msg, nil)
	}
}

// BenchmarkSaketestCallTool measures tools/call through the in-memory
// test client: encoding, dispatch and decoding.
func BenchmarkSaketestCallTool(b *testing.B) {
	c := saketest.Connect(b, benchServer{})
	args := map[string]any{"text": "hello"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CallTool("echo", args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSeenType measures building a server from a type already
// reflected: what a server built per request costs.
func BenchmarkNewSeenType(b *testing.B) {
	sake.MustNew(newNotes())
	b.ReportAllocs()
	for b.Loop() {
		sake.MustNew(newNotes())
	}
}

// BenchmarkAddTools registers n tools one by one on a new server, then
// lists them once (which builds the snapshot): linear in n.
func BenchmarkAddTools(b *testing.B) {
	for _, n := range []int{100, 1000, 4000} {
		defs := make([]*sake.ToolDef, n)
		for i := range defs {
			defs[i] = sake.NewTool(fmt.Sprintf("tool_%05d", (i*7919)%n), func(ctx *sake.Context, a benchArgs) (string, error) { return a.Text, nil })
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := sake.MustNew(nil)
				for _, d := range defs {
					if err := s.AddTool(d); err != nil {
						b.Fatal(err)
					}
				}
				s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
			}
		})
	}
}

// BenchmarkDispatchToolsCallLongName is the modern call of a tool whose
// name is longer than 32 bytes, as the namespaced tools of a gateway are.
func BenchmarkDispatchToolsCallLongName(b *testing.B) {
	const name = "warehouse_inventory_lookup_by_sku_echo"
	s := sake.MustNew(nil)
	if err := s.AddTool(sake.NewTool(name, benchServer{}.Echo)); err != nil {
		b.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"` + name + `","arguments":{"text":"hello"}}}`)
	in := &sake.Inbound{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}
