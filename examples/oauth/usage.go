package main

import (
	"flag"
	"fmt"
)

// usage is what -h prints: what the command serves, how to run it, and
// its flags.
const usage = `usage: oauth [-http ADDR] [-issuer URL] [-oidc-issuer URL -oidc-client-id ID [-oidc-client-secret SECRET]]

OAuth serves notes at http://ADDR/mcp behind its own OAuth 2.1
authorization server: an application with its own users (alice, password
wonderland, one-time code 123456), login form and session cookie. MCP
clients discover it from the 401, register, and send the person to sign
in. With -oidc-issuer people sign in at that OpenID provider instead
(register ISSUER/login/callback there as the redirect URI).

	go run ./examples/oauth -http 127.0.0.1:8080
	sake call http://127.0.0.1:8080/mcp list_notes
`

func init() {
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		fmt.Fprintln(flag.CommandLine.Output(), "\nFlags:")
		flag.PrintDefaults()
	}
}
