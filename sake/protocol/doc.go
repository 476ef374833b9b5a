// Package protocol is the MCP vocabulary shared by the server (package
// sake), the client (sake/client), the test client (sake/saketest) and
// the proxy: content blocks, tool, prompt and resource results and list
// entries, errors and their codes, protocol versions and eras,
// capabilities, log levels, the questions a server asks a client
// (elicitation, sampling, roots), completion, task status values, the
// descriptors of the Apps and Skills extensions, and the JSON-RPC 2.0
// framing every message is written and peeked through.
//
// It imports nothing from sake, so a client links no server. A tool
// author rarely imports it: package sake re-exports, as aliases, the
// names tools write (sake.Text, sake.ToolResult, sake.Error, ...).
//
// The Append functions write JSON by appending to a buffer, without
// reflection, for the hot paths of the server and the client.
package protocol
