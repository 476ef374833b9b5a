// Package gateway serves several MCP servers as one: each entry of an
// mcpServers configuration (the JSON Claude Desktop, Cursor and VS Code
// read) is connected with sake/client, fronted by sake/proxy, and
// mounted into one *sake.Server under its namespace (sake.Server.Mount),
// which any transport serves (sake/plug for Streamable HTTP, sake/stdio).
//
// A command entry (command, args, env) is started and spoken to over
// stdio; a url entry (url, headers) over Streamable HTTP. Each remote
// uses its own credentials (an entry's headers, for example a static
// Authorization header), never the gateway's callers'. A remote that dies
// is restarted or reconnected with backoff: its components leave the
// gateway (its clients are told the lists changed) and come back when it
// does, and the other remotes go on serving. Lists are answered from what
// the gateway keeps, never by asking the remotes per request.
//
// A url entry with "oauth": {"perUser": true} is called as each caller
// instead, with the caller's own token at the server's authorization
// server: a caller without one is asked, through URL elicitation, to
// sign in there (the authorization code flow with PKCE; the browser comes
// back to PublicURL + CallbackPath, served by Gateway.SignInHandler), the
// token is kept sealed in UserTokens (a usertokens.Vault), refreshed, and
// forgotten by the entry's sign_out tool, and each caller's calls travel
// on a session of their own. Such an entry needs callers with a subject:
// a call without one is refused. The sign-ins in progress are kept in a
// SignInStore: in memory (MemorySignIns), or, for replicas behind a
// balancer without affinity, in PostgreSQL (PendingSignIns with package
// pgsignins), so that a callback may land on any replica. See
// docs/composing.md, "sake gateway".
package gateway
