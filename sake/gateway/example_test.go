package gateway_test

import (
	"fmt"
	"net/http"

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

// A gateway's url entries share one HTTP client that keeps connections
// alive; give it another size (or a client of your own with HTTPClient).
func ExampleNewHTTPClient() {
	hc := gateway.NewHTTPClient(128)
	tr := hc.Transport.(*http.Transport)
	fmt.Println(tr.MaxIdleConnsPerHost, tr.ForceAttemptHTTP2)
	_ = gateway.HTTPClient(hc) // the Option for gateway.New
	// Output: 128 true
}

// A stdio entry gets a minimal environment; inheritEnv names what more
// it may read of the gateway's.
func ExampleEntry_inheritEnv() {
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {
		"files": {"command": "files-server", "env": {"ROOT": "/srv"}, "inheritEnv": ["NODE_OPTIONS"]}
	}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Servers["files"].InheritEnv)
	// Output: [NODE_OPTIONS]
}
