package sake_test

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
)

const benchModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// BenchmarkDispatchToolsListAppOnly measures tools/list of a server with
// an app-only tool, for a client without MCP Apps (the filtered list) and
// one with it.
func BenchmarkDispatchToolsListAppOnly(b *testing.B) {
	s := sake.MustNew(&board{})
	ctx := context.Background()
	for _, c := range []struct{ name, caps string }{
		{"plain", `{}`},
		{"apps", `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`},
	} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + `}}}`)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := s.Handle(ctx, msg, nil); r.ErrorCode != 0 {
					b.Fatal(string(r.Body))
				}
			}
		})
	}
}

// BenchmarkDispatchSkills measures skills/list (one page of 50 skills),
// skills/get and resources/read of a skill file.
func BenchmarkDispatchSkills(b *testing.B) {
	fsys := fstest.MapFS{}
	for i := 0; i < 50; i++ {
		name := fmt.Sprintf("skill-%02d", i)
		fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: A skill.\n---\nBody.\n")}
		fsys[name+"/references/guide.md"] = &fstest.MapFile{Data: []byte("# Guide\n")}
	}
	s := sake.MustNew(nil, sake.Skills(fsys))
	ctx := context.Background()
	for _, c := range []struct{ name, msg string }{
		{"list", `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{` + benchModernMeta + `}}`},
		{"get", `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{` + benchModernMeta + `,"uri":"skill://skill-07/SKILL.md"}}`},
		{"read", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{` + benchModernMeta + `,"uri":"skill://skill-07/references/guide.md"}}`},
	} {
		msg := []byte(c.msg)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := s.Handle(ctx, msg, nil); r.ErrorCode != 0 {
					b.Fatal(string(r.Body))
				}
			}
		})
	}
}
