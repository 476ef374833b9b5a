package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: proxy [flags] COMMAND [ARGS...]

Proxy starts the stdio MCP server COMMAND (with ARGS) and serves its tools,
resources, prompts, tasks and skills as Streamable HTTP at
http://ADDR/mcp. With -issuer, -jwks and -resource its callers need access
tokens from that authorization server; their tokens stay in the proxy, never
passed to the stdio server.

	go run ./examples/proxy -http 127.0.0.1:3100 go run ./examples/everything
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
