package otel

import (
	"encoding/json"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
)

// Attribute keys: the semantic conventions' and sake's own.
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keySessionID       = attribute.Key("mcp.session.id")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperation       = attribute.Key("gen_ai.operation.name")
	keyToolArgs        = attribute.Key("gen_ai.tool.call.arguments")
	keyToolResult      = attribute.Key("gen_ai.tool.call.result")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyErrorType       = attribute.Key("error.type")
	keyTransport       = attribute.Key("network.transport")
	keyProtocolName    = attribute.Key("network.protocol.name")
	keyProtocolVer     = attribute.Key("network.protocol.version")
	keyServerAddress   = attribute.Key("server.address")
	keyServerPort      = attribute.Key("server.port")

	keyResultType = attribute.Key("sake.result_type")  // input_required or task
	keyRetry      = attribute.Key("sake.input.retry")  // a modern retry carrying answers
	keyInputKey   = attribute.Key("sake.input.key")    // the key a question was asked with
	keyTaskID     = attribute.Key("sake.task.id")      // digest unless RawIDs
	keyTaskStatus = attribute.Key("sake.task.status")  // completed, failed, cancelled
	keyStream     = attribute.Key("sake.stream")       // subscriptions/listen or http_get
	keyException  = attribute.Key("exception.type")    // on panic events
	keyExcMessage = attribute.Key("exception.message") // on panic events
	keyExcStack   = attribute.Key("exception.stacktrace")
)

const (
	maxName  = 128     // names and ids beyond this are cut
	maxIO    = 8 << 10 // recorded arguments and results
	toolErr  = "tool_error"
	opTool   = "execute_tool"
	otherErr = "_OTHER"
)

// cut truncates s to n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// requestID renders a JSON-RPC id: a string without its quotes, a number
// as written.
func requestID(raw []byte) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return cut(s, maxName)
		}
	}
	return cut(string(raw), maxName)
}

// transportAttrs maps sake's transport names to network attributes.
func transportAttrs(name string, dst []attribute.KeyValue) []attribute.KeyValue {
	switch name {
	case "http":
		return append(dst, keyTransport.String("tcp"), keyProtocolName.String("http"))
	case "stdio":
		return append(dst, keyTransport.String("pipe"))
	case "", "memory":
		return dst
	}
	return append(dst, keyTransport.String(cut(name, maxName)))
}

func codeString(code int) string { return strconv.Itoa(code) }
