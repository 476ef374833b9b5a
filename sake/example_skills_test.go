package sake_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
)

// Skills serves the Agent Skills of an fs.FS (an embed.FS in the common
// case): skills/list gives each skill's frontmatter and the digest and
// size of each of its files, read with resources/read.
func ExampleSkills() {
	skills := fstest.MapFS{
		"greeting/SKILL.md": {Data: []byte("---\nname: greeting\ndescription: Greet people warmly.\n---\nSay hello by name.\n")},
	}
	srv := sake.MustNew(nil, sake.Skills(skills), sake.WithoutServerInfoMeta())
	reply := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil)
	fmt.Println(string(reply.Body))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"skills":[{"uri":"skill://greeting/SKILL.md","frontmatter":{"name":"greeting","description":"Greet people warmly."},"resources":[{"uri":"skill://greeting/SKILL.md","digest":"sha256:07a5bb1ad7f0ad8ab80f4a1d8111c0160ac77a8181253ae2d1e13133c2a25e17","size":76}]}],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}
}
