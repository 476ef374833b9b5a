// Command sake builds and tries Model Context Protocol servers written with
// Sake for Go, and servers written with anything else.
//
//	go install github.com/sakemcp/sake-go/cmd/sake@latest
//
// Usage:
//
//	sake <command> [arguments]
//
// The commands are:
//
//	inspect      print a server's tools, resources, templates, prompts and capabilities
//	call         call a tool and print its result
//	logout       forget the sign-in kept for a server's URL
//	install      add a server to Claude Desktop, Claude Code, Cursor or VS Code
//	snapshot     write or compare a golden file of a server's surface
//	new          create a module with a server, its tests and a main
//	conformance  run the official MCP conformance suite against a server
//	dev          build and run a server, rebuilding it when its files change
//	gen          register a package's doc comments as its descriptions (go:generate)
//	openapi      serve the HTTP API of an OpenAPI document as an MCP server
//	version      print the version of sake
//	gateway      serve the servers of an mcpServers file as one, reloadable, with health probes
//
// Use "sake <command> -h" for more about a command.
//
// # Servers
//
// Every command that talks to a server takes it as CMD [ARGS...] (a command
// started and spoken to over stdio) or as a URL (a Streamable HTTP endpoint,
// http:// or https://). Both protocol eras are spoken: by default the
// command asks the server with server/discover and uses 2026-07-28 when it
// is offered, else the initialize handshake of 2025-11-25; -era pins one
// (modern, legacy, or a revision down to 2024-11-05). -header adds an HTTP
// header (a bearer token, say), -timeout bounds the whole command (30s for
// inspect and snapshot, none for call; a sign-in does not count), -v shows
// the server command's standard error and every message exchanged.
//
// What a server sends is shown with its control characters escaped (\x1b,
// \u009b): a server's terminal escapes cannot rewrite the screen, fake a
// prompt or set the clipboard. -json output is exact.
//
// # Signing in
//
// A URL whose server answers 401 with a challenge naming its authorization
// server (RFC 9728 resource metadata) is signed in to with OAuth 2.1: the
// command registers itself dynamically (or uses -client-id), opens the
// sign-in page in the browser where there is one (xdg-open, open) and
// always prints its URL on standard error, and waits for the redirect on a
// listener on 127.0.0.1, with PKCE. -device, or a session over SSH without
// a display when the authorization server offers it, shows a code to type
// on another device instead (RFC 8628). -client-id with -client-secret
// signs in as a machine client (client credentials); that token is not
// kept. -scope asks for more scopes; -header Authorization turns the
// sign-in off. A person's token is kept in the user's configuration
// directory (os.UserConfigDir()/sake/tokens, one file per URL, the
// directory 0700 and each file 0600), refreshed when it expires, and
// removed by
//
//	sake logout URL
//
// # Inspect
//
//	sake inspect [-json] [-schemas] CMD [ARGS...] | URL
//
// prints the server's name and protocol revision, its capabilities and
// extensions, its tools (a summary of each input and output schema's
// properties, the whole schemas with -schemas, and annotations), resources,
// resource templates, prompts and skills. -json prints all of it as one JSON
// object.
//
// # Call
//
//	sake call [-json] CMD [ARGS...] | URL  TOOL [JSON]
//
// calls TOOL with the arguments JSON (an object; none when left out) and
// prints its result: text content as it is, structured content as indented
// JSON (without the text copy that repeats it), other content as a line
// saying what it is; -json prints the whole result. The last argument is the
// arguments when it starts with "{", the one before it (or the last) is the
// tool, and what comes before is the server:
//
//	sake call bin/quickstart greet '{"name":"Rui"}'
//
// A tool that fails prints its message on standard error and exits with 1;
// an unknown tool names the server's tools closest to it. When the tool asks
// the user something (elicitation, form or URL mode, in either era), the
// question is put on standard error and the answers read from standard
// input, one line each; the end of the input cancels the question. Progress
// goes to standard error.
//
// # Install
//
//	sake install claude-desktop|claude-code|cursor|vscode [-name N] [-env K=V] [-dry-run] [-force] [-config FILE] BINARY [ARGS...] | URL
//
// adds the server to the client's configuration file, with the binary's
// absolute path (a name without a slash is looked up on PATH):
//
//	claude-desktop  claude_desktop_config.json in ~/Library/Application Support/Claude (macOS),
//	                %APPDATA%\Claude (Windows), $XDG_CONFIG_HOME/Claude or ~/.config/Claude (Linux); mcpServers
//	claude-code     ~/.claude.json (the user scope); mcpServers, with "type": "stdio"
//	cursor          ~/.cursor/mcp.json; mcpServers
//	vscode          mcp.json in VS Code's user directory (Code/User beside Claude's above); servers, with "type": "stdio"
//
// The file is merged: every other server and setting stays, in its order;
// the old file is kept as FILE.bak (FILE.bak.1, ... when that exists); a
// file that is not JSON (comments, trailing commas) is refused untouched,
// except VS Code's mcp.json, read as JSONC, whose comments are kept; a
// server of the same name is replaced only with -force. -dry-run prints the
// file as it would be and changes nothing. -name defaults to the binary's
// name. A URL instead of a binary (the endpoint sake dev serves, say) is
// added, with -name, as a remote server ("type": "http") to Claude Code,
// Cursor and VS Code; Claude Desktop takes remote servers in its settings.
//
// # Snapshot
//
//	sake snapshot [-update] CMD [ARGS...] | URL  FILE
//
// compares the server's surface with the golden file FILE and, when they
// differ, prints what changed (tools, resources, templates and prompts
// added, removed or changed, with the changed lines) and exits with 1; with
// -update it writes FILE instead. The file holds the protocol revision, the
// capability and extension names, and every tool (name, title, description,
// input and output schemas, annotations), resource (without its size),
// resource template and prompt, sorted, each object's keys sorted, so that
// the same server always gives the same file. Without -era the comparison
// uses the revision the file was taken in.
//
// # New
//
//	sake new [-module PATH] [-replace CHECKOUT] [-tidy=false] DIR
//
// writes a new module into DIR (which must not exist or be empty): a server
// with a tool, a resource and a prompt (server.go) whose doc comments are
// their descriptions (sake_gen.go, as sake gen writes it), their saketest
// tests in both eras (server_test.go), a main serving stdio or, with -http
// ADDR, Streamable HTTP at /mcp (main.go), a README, a Dockerfile and a
// GitHub Actions workflow (which runs sake gen -check); then it runs go mod
// tidy there, so that go test ./... passes at once. -module defaults to
// DIR's name; -replace makes the module use a local checkout of sake-go (a
// replace directive).
//
// # Conformance
//
//	sake conformance [-revisions 2025-11-25,2026-07-28] [-suite VERSION] [-o DIR] CMD [ARGS...] | URL
//
// runs the official conformance suite (@modelcontextprotocol/conformance,
// through npx) against the server over Streamable HTTP, once per protocol
// revision, and prints each scenario's outcome and the score per revision;
// it exits with 1 when a scenario fails. A command is started with
// -http 127.0.0.1:PORT appended to its arguments (-http-flag names another
// flag) and stopped at the end. It needs Node.js 22 or newer and npx on
// PATH, and says so when they are missing.
//
// # Dev
//
//	sake dev [-http ADDR] [-interval D] [PKG] [-- ARGS...]
//
// builds the server package PKG (the current directory by default), runs it
// and serves it on ADDR (127.0.0.1:8080), prints how to point the MCP
// Inspector and Claude Code at it, and rebuilds and restarts it when a file
// of a package of its module it is built from changes (checked every
// -interval, 500ms; tests are not watched; at most 10000 files). Dev
// listens on ADDR itself and passes the requests on to the server, started
// with -http and a private loopback address (-http-flag names another
// flag). A new build takes over only once it listens: a build that fails,
// or a server that exits before it listens, is shown and the previous
// build keeps serving. A sake_gen.go out of date with the doc comments is
// reported. Ctrl-C stops both.
//
// # Gen
//
//	sake gen [-check] [-o FILE] [DIR]
//
// reads the Go package in DIR (the current directory by default) with
// go/parser and writes sake_gen.go (-o names another file) beside it: a
// deterministic, gofmt'd file, marked as generated, whose init function
// calls sake.RegisterDocs for each type with something to register. It
// registers the doc comment of every exported method whose first parameter
// is a context.Context or a *sake.Context, on every named type of the
// package (the methods sake.New makes components of, whatever Declare makes
// them: tool, resource, resource template or prompt), as the component's
// description; and the doc comment (else the line comment) of every
// exported field of every struct type, as the description of the field's
// property in the JSON Schemas reflected from the struct. A description
// from Declare or from a jsonschema tag wins; a method or field without a
// comment keeps no description. The registration runs in init, after
// package-level variables; a server built in one is described again when
// it comes, so descriptions hold however the server is built. Doc comments
// become plain text: doc links
// and markup as text, paragraphs apart, lines unwrapped. Tests, generic
// types and files with build constraints (a //go:build line, a name like
// x_linux.go) are left out. Put
//
//	//go:generate sake gen
//
// in one file of the package. -check changes nothing and exits with 1,
// printing what differs, when the file is missing or not what gen would
// write now: a CI step that catches a comment changed without go generate.
//
// # OpenAPI
//
//	sake openapi [-http ADDR] [-base-url URL] [-header 'NAME: VALUE']... SPEC
//
// serves the HTTP API that the OpenAPI 3.0 or 3.1 document SPEC (a file, JSON
// or YAML, or an http(s) URL) describes, as sake/openapi makes it: every
// operation a tool named after its operationId. It serves stdio by default,
// or Streamable HTTP at http://ADDR/mcp with -http. The API is called at the
// document's first server, or at -base-url; -header adds a header to every
// request to the API, with $VAR replaced by the environment's value, and
// -max-response bounds the bytes read of one answer.
//
// # Version
//
//	sake version [-v]
//
// prints the version of the sake-go module sake was built from: the one go
// install fetched, the pseudo-version go build stamped in a checkout, or
// else the newest release's version followed by "(devel)". -v adds the Go
// version, the platform and the commit.
//
// # Gateway
//
//	sake gateway [-config mcp.json] [-http ADDR | -stdio] [flags]
//	sake gateway approve [-config mcp.json] [server[/tool]]
//
// serves the servers of an mcpServers file as one MCP server (see package
// sake/gateway), over Streamable HTTP with /healthz and /readyz, or over
// stdio. The file is watched and SIGHUP reloads it: only the entries that
// changed are touched, and a file that does not validate is refused. TLS
// (-tls-cert, -tls-key), allowed origins and hosts, timeouts, JSON logs,
// token verification from the file's "auth" section, pinned tool
// definitions (approve serves a changed one again), replicas on
// PostgreSQL (-postgres) and OTLP metrics; -h lists them.
//
// # Exit codes
//
// 0 when the command did what it was asked, 1 when it failed (the server
// could not be reached, a tool failed, a snapshot differs, a generated file
// is stale), 2 when the command line is wrong.
package main
