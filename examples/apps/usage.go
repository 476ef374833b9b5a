package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: apps [-http ADDR]

Apps serves a to-do list whose tools show an MCP Apps view (an HTML page
the client renders beside the conversation). Without -http it speaks MCP
on standard input and output, as a client starts it; with -http it serves
Streamable HTTP at http://ADDR/mcp.

	go run ./examples/apps                      # stdio
	go run ./examples/apps -http 127.0.0.1:8080 # Streamable HTTP
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
