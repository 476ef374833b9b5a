package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: gateway -config FILE [-http ADDR]

Gateway serves several MCP servers as one. FILE is an mcpServers
configuration (the JSON Claude Desktop, Cursor and VS Code read; see
examples/gateway/example.json): each server, a command or a url, is mounted
under its key (or its "namespace"; "" merges it), reached with the
credentials of its own entry, and restarted or reconnected when it fails.
Without -http the gateway speaks MCP on standard input and output; with
-http it serves Streamable HTTP at http://ADDR/mcp.

	go run ./examples/gateway -config examples/gateway/example.json -http 127.0.0.1:3200
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
