package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: production [flags]

Production serves an MCP server wired as a production deployment wants it:
rate limits per caller, per-tool timeouts, a cap on result sizes, masked
errors, a cache of read-only results, an access log, OpenTelemetry, health
probes (/healthz, /readyz) and a graceful shutdown, with Streamable HTTP at
http://ADDR/mcp. On SIGINT or SIGTERM /readyz answers 503, and after -drain
the server stops taking requests and gives the calls under way -grace.

	go run ./examples/production -http 127.0.0.1:8080 -rate-limit 10 -access-log
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
