package sake_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

type benchEchoArgs struct {
	Text   string `json:"text"`
	Tenant string `json:"tenant,omitempty"`
}

func benchEcho(_ *sake.Context, a benchEchoArgs) (string, error) { return a.Text + a.Tenant, nil }

const benchMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

func benchCall(b *testing.B, s *sake.Server, name, args string) {
	b.Helper()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + benchMeta + `,"name":"` + name + `","arguments":` + args + `}}`)
	in := &sake.Inbound{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}

func benchEchoServer(b *testing.B, tr ...sake.Transform) *sake.Server {
	b.Helper()
	s := sake.MustNew(nil)
	if err := s.AddTool(sake.NewTool("echo", benchEcho)); err != nil {
		b.Fatal(err)
	}
	if err := s.Transform(tr...); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkTransformCallDirect is the baseline: a call of the tool as it is.
func BenchmarkTransformCallDirect(b *testing.B) {
	benchCall(b, benchEchoServer(b), "echo", `{"text":"hello"}`)
}

// BenchmarkTransformCallRenamed calls a tool renamed and re-described:
// the same path as a direct call.
func BenchmarkTransformCallRenamed(b *testing.B) {
	benchCall(b, benchEchoServer(b, sake.Transform{Tool: "echo", Name: "say", Description: "Says it."}), "say", `{"text":"hello"}`)
}

// BenchmarkTransformCallArgs calls a tool whose argument is renamed and
// another hidden with a fixed value.
func BenchmarkTransformCallArgs(b *testing.B) {
	benchCall(b, benchEchoServer(b, sake.Transform{Tool: "echo", Args: map[string]sake.ArgTransform{
		"text": {Name: "message"}, "tenant": {Value: "acme"},
	}}), "echo", `{"message":"hello"}`)
}

// BenchmarkTransformCallWrapped calls a tool through a Wrap that passes
// the arguments on.
func BenchmarkTransformCallWrapped(b *testing.B) {
	benchCall(b, benchEchoServer(b, sake.Transform{Tool: "echo",
		Wrap: func(c *sake.Context, args map[string]any, call func(map[string]any) (*sake.ToolResult, error)) (*sake.ToolResult, error) {
			return call(args)
		}}), "echo", `{"text":"hello"}`)
}

func benchListServer(b *testing.B, opts ...sake.Option) *sake.Server {
	b.Helper()
	s := sake.MustNew(nil, opts...)
	defs := make([]*sake.ToolDef, 100)
	for i := range defs {
		defs[i] = sake.NewTool(fmt.Sprintf("tool_%03d", i), benchEcho).Description("A tool.")
		if i%2 == 0 {
			defs[i].Scopes("even")
		}
	}
	if err := s.AddTool(defs...); err != nil {
		b.Fatal(err)
	}
	return s
}

func benchList(b *testing.B, s *sake.Server) {
	b.Helper()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + benchMeta + `}}`)
	in := &sake.Inbound{Identity: &sake.Identity{Subject: "u", Scopes: []string{"even"}, FromToken: true}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Handle(ctx, msg, in); r.ErrorCode != 0 {
			b.Fatal(string(r.Body))
		}
	}
}

// BenchmarkToolsList100 lists 100 tools, the same for everyone.
func BenchmarkToolsList100(b *testing.B) { benchList(b, benchListServer(b)) }

// BenchmarkToolsList100PerCaller lists the same 100 tools filtered for
// the caller by requirement and a predicate.
func BenchmarkToolsList100PerCaller(b *testing.B) {
	benchList(b, benchListServer(b, sake.PerCallerLists(func(_ *sake.Request, c sake.ComponentInfo) bool { return len(c.Tags) == 0 })))
}
