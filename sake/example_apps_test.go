package sake_test

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// A view is an HTML5 document at a ui:// URI; a tool names it, and a tool
// visible to the app only is what the view's buttons call.
func ExampleNewView() {
	srv := sake.MustNew(nil)
	err := srv.AddView(sake.NewView("ui://clock/face", `<!DOCTYPE html><html><body id="face"></body></html>`).
		CSP(sake.CSP{ConnectDomains: []string{"https://time.example.com"}}).PrefersBorder(false))
	if err != nil {
		panic(err)
	}
	err = srv.AddTool(sake.NewTool("show_clock", func(ctx context.Context) (string, error) {
		return "It is noon.", nil
	}).Description("Shows a clock.").View("ui://clock/face"))
	fmt.Println(err)
	reply := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
		"uri":"ui://clock/face"}}`), nil)
	fmt.Println(string(reply.Body))
	// Output:
	// <nil>
	// {"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"ui://clock/face","mimeType":"text/html;profile=mcp-app","text":"<!DOCTYPE html><html><body id=\"face\"></body></html>","_meta":{"ui":{"csp":{"connectDomains":["https://time.example.com"]},"prefersBorder":false}}}],"resultType":"complete","ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"server","version":"0.0.0"}}}}
}
