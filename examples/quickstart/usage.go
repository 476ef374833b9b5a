package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: quickstart [flags]

Quickstart is a small MCP server built with Sake for Go: tools that greet
and convert temperatures, a resource and a prompt. Without -http it speaks
MCP on standard input and output, as a client starts it (and says on
standard error how to try it); with -http it serves Streamable HTTP at
http://ADDR/mcp.

	go build -o bin/quickstart ./examples/quickstart
	sake call bin/quickstart greet '{"name":"Rui"}'
	bin/quickstart -http 127.0.0.1:8080
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
