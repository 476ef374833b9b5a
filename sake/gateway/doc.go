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
package gateway
