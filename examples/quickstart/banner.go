package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// tryRequest is a request to paste into the stdio server: it calls the
// greet tool in the 2026-07-28 protocol, which needs no handshake.
var tryRequest = string(protocol.AppendRequest(nil, []byte("1"), "tools/call",
	[]byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"greet","arguments":{"name":"Rui"}}`)))

// banner tells a person who started the server by hand what it is doing:
// MCP on stdio waits silently for JSON-RPC lines. It goes to stderr, which
// MCP clients show as logs, never to stdout, which carries the protocol.
func banner(w io.Writer) {
	lines := []string{
		"quickstart: serving MCP on stdio (one JSON-RPC message per line). Stop with Ctrl-D (end of input) or Ctrl-C.",
		"Paste this request to call the greet tool:",
		"  " + tryRequest,
		"Or serve Streamable HTTP instead: quickstart -http 127.0.0.1:8080 (then connect to http://127.0.0.1:8080/mcp).",
	}
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}

// originList is a flag that gathers -allow-origin values.
type originList []string

func (o *originList) String() string { return strings.Join(*o, ",") }

func (o *originList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*o = append(*o, s)
		}
	}
	return nil
}
