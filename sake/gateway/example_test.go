package gateway_test

import (
	"fmt"

	"github.com/sakemcp/sake-go/sake/gateway"
)

// The mcpServers file of Claude Desktop, Cursor and VS Code: each entry
// is mounted under its key, or its "namespace" ("" merges).
func ExampleParseConfig() {
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {
		"everything": {"url": "http://127.0.0.1:3001/mcp", "namespace": ""},
		"qs": {"command": "quickstart"}
	}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, key := range []string{"everything", "qs"} {
		e := cfg.Servers[key]
		fmt.Printf("%s: namespace %q, command %q, url %q\n", key, e.NamespaceOf(key), e.Command, e.URL)
	}
	// Output:
	// everything: namespace "", command "", url "http://127.0.0.1:3001/mcp"
	// qs: namespace "qs", command "quickstart", url ""
}
