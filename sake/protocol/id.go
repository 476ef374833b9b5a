package protocol

import "encoding/json"

// MaxIDBytes is the longest request id or progress token the dispatcher
// accepts, measured as JSON text (a string's quotes and escapes count).
// Both are echoed in every reply and notification, and kept while the
// request runs and for replay, so a longer one is refused: an id with
// -32600, a progress token with -32602.
const MaxIDBytes = 256

// ValidID reports whether raw is a JSON string or number of at most
// MaxIDBytes, the only ids JSON-RPC requests may carry in MCP.
func ValidID(raw json.RawMessage) bool {
	if len(raw) == 0 || len(raw) > MaxIDBytes {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}
