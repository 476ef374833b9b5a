// Command oauth is an MCP server that is its own OAuth 2.1 authorization
// server: a small application with its own users, login form and session
// cookie, whose sign-in becomes the identity provider for MCP clients.
//
//	go run ./examples/oauth -http 127.0.0.1:8080
//
// Flags:
//
//	-http ADDR     address to listen on (default 127.0.0.1:8080)
//	-issuer URL    the issuer URL clients see (default http://ADDR); set it
//	               when a proxy terminates TLS in front of the server
//	-oidc-issuer URL, -oidc-client-id ID, -oidc-client-secret SECRET
//	               sign people in at that OpenID provider instead of the
//	               login form (the secret may come from $OIDC_CLIENT_SECRET);
//	               register ISSUER/login/callback as the redirect URI
//	               there (it is printed at start)
//
// The MCP endpoint is ISSUER/mcp. Point a client at it: it gets a 401
// with the protected resource metadata, discovers the authorization server
// at ISSUER, registers (client ID metadata document or dynamic
// registration) or uses the pre-registered public client "demo-client"
// (redirect http://127.0.0.1:ANY-PORT/callback or
// http://localhost:ANY-PORT/callback), and sends the person to sign in.
//
// The pre-seeded demo user:
//
//	username  alice
//	password  wonderland
//	one-time code  123456  (the second factor, for a multi-factor sign-in)
//
// A sign-in with the one-time code has acr "urn:sake:mfa" (amr pwd and
// otp); without it "urn:sake:pwd". The tools: whoami (any scope),
// list_notes (notes:read), add_note (notes:write), and delete_all_notes
// (notes:write and a multi-factor sign-in within the last ten minutes: a
// token without one gets error="insufficient_user_authentication" with
// acr_values and max_age, and the client's next authorization request with
// them makes the login ask for the one-time code).
package main
