// Package interop runs sake/client against MCP servers written elsewhere:
// the Go SDK's conformance everything-server
// (github.com/modelcontextprotocol/go-sdk/conformance/everything-server)
// and the TypeScript reference server @modelcontextprotocol/server-everything,
// over stdio and Streamable HTTP, in every protocol revision each serves.
//
// It also runs the client, and examples/proxy in front of it, against a
// stand-in for a stdio server of the Python SDK 1.x (FastMCP 1.x): a Go
// program in the tests (pyStandIn) that answers as that server does on
// the wire — no logging capability, -32601 for logging/setLevel, the
// handshake at 2025-06-18 or 2025-03-26, questions that name no call. It
// is not the Python SDK: PyPI cannot be reached where these tests were
// written, so the real server could not be installed.
//
// It is a module of its own so that the Go SDK stays out of the main
// module's requirements. scripts/interop.sh installs the TypeScript server
// and runs the tests; without it they skip the TypeScript server and say
// so.
package interop
