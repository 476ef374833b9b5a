package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: everything [-http ADDR] [-allow-origin ORIGINS] [-postgres URL]

Everything serves the fixture of the official MCP conformance suite: every
tool, resource, prompt and task its scenarios call, in both protocol eras.
Without -http it speaks MCP on standard input and output; with -http it
serves Streamable HTTP at http://ADDR/mcp. With -postgres it is one of
several replicas sharing tasks, broadcasts and its signing secret on that
database.

	go run ./examples/everything -http 127.0.0.1:3001
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
