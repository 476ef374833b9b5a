// Package interop runs sake/client against MCP servers written elsewhere:
// the Go SDK's conformance everything-server
// (github.com/modelcontextprotocol/go-sdk/conformance/everything-server)
// and the TypeScript reference server @modelcontextprotocol/server-everything,
// over stdio and Streamable HTTP, in every protocol revision each serves.
//
// It is a module of its own so that the Go SDK stays out of the main
// module's requirements. scripts/interop.sh installs the TypeScript server
// and runs the tests; without it they skip the TypeScript server and say
// so.
package interop
