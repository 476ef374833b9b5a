package sake_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// A typed tool: the compiler checks the function's shape.
func ExampleNewTypedTool() {
	type Args struct {
		Text  string `json:"text"`
		Times int    `json:"times,omitempty"`
	}
	srv := sake.MustNew(nil, sake.Name("shout", "1.0.0"), sake.WithoutServerInfoMeta())
	err := srv.AddTool(sake.NewTypedTool("repeat", func(ctx *sake.Context, a Args) (string, error) {
		return strings.Repeat(a.Text, max(a.Times, 1)), nil
	}))
	if err != nil {
		panic(err)
	}
	reply := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
		"name":"repeat","arguments":{"text":"ab","times":3}}}`), nil)
	fmt.Println(string(reply.Body))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ababab"}],"resultType":"complete"}}
}

// Many tools at once: one list change for the whole batch.
func ExampleServer_AddTool_batch() {
	srv := sake.MustNew(nil)
	changes := 0
	srv.Watch(func(sake.Broadcast) { changes++ })
	var defs []*sake.ToolDef
	for _, name := range []string{"create", "read", "update", "delete"} {
		defs = append(defs, sake.NewTypedTool(name, func(ctx *sake.Context, a struct {
			ID string `json:"id"`
		}) (string, error) {
			return name + " " + a.ID, nil
		}))
	}
	fmt.Println(srv.AddTool(defs...), changes)
	// Output: <nil> 1
}
