package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: secure [-http ADDR] [-issuer URL [-jwks-url URL]] [-resource URL] [-allow-origin ORIGINS]

Secure serves tools that need OAuth scopes, one of them a recent
multi-factor sign-in (RFC 9470), with Streamable HTTP at http://ADDR/mcp.
With -issuer it accepts the tokens of that authorization server (Keycloak,
Auth0, Okta, Entra ID...), checked against its keys; without, it signs
development tokens of its own and prints one with every scope.

	go run ./examples/secure -http 127.0.0.1:8080
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
