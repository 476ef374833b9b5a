package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: tasks [-http ADDR] [-allow-origin ORIGINS]

Tasks serves an export that runs as a task: the client starts it, polls
it and reads its result when it is done. Without -http it speaks MCP on
standard input and output; with -http it serves Streamable HTTP at
http://ADDR/mcp.

	go run ./examples/tasks -http 127.0.0.1:8080
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
