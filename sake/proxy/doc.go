// Package proxy builds a sake server in front of a remote MCP server:
// New turns a connected *client.Client into a *sake.Server whose tools,
// resources, templates, prompts and skills are the remote server's,
// forwarded with the proxy's own credentials, never its callers'.
//
// A forwarded 2026-07-28 request declares what the proxy's caller
// declared (capabilities, log level), not what the proxy's client could
// answer (client.WithForward); the remote server's questions go to the
// caller (client.ForwardQuestions). A remote task becomes a task of the
// proxy's, owned by the caller (another caller gets "Task not found"),
// which the proxy follows and cancels upstream. The remote skills are
// copied once and served by the proxy.
//
// It is a package of its own because it joins the two sides: the client
// imports no server code, and the server imports no client.
package proxy
