package sake

import (
	"encoding/json"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// envelope is a JSON-RPC message decoded once: params are decoded straight
// into the union of every method's params.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	method  string
	Params  *Params         `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Params is the union of the params of every method the server answers,
// decoded once from the message. Middleware reads the fields its method
// uses; Request.Message holds the raw bytes for anything else.
type Params struct {
	Meta *RequestMeta `json:"_meta"`

	// tools/call, prompts/get
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`

	// resources/read, resources/subscribe, resources/unsubscribe
	URI string `json:"uri"`

	// the list methods
	Cursor *string `json:"cursor"`

	// MRTR retries (tools/call, resources/read, prompts/get)
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   *string         `json:"requestState"`

	// completion/complete
	Ref      *protocol.CompleteRef      `json:"ref"`
	Argument *protocol.CompleteArgument `json:"argument"`
	Context  *protocol.CompleteContext  `json:"context"`

	// logging/setLevel
	Level LogLevel `json:"level"`

	// initialize
	ProtocolVersion string                       `json:"protocolVersion"`
	Capabilities    *protocol.ClientCapabilities `json:"capabilities"`
	ClientInfo      *protocol.Implementation     `json:"clientInfo"`

	// subscriptions/listen
	Notifications json.RawMessage `json:"notifications"`

	// tasks/*
	TaskID string          `json:"taskId"`
	Task   json.RawMessage `json:"task"`

	// notifications/cancelled
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`

	// checkedArgs and checkedLen locate Arguments as decoded from a
	// message already validated as a whole, so decoding it again needs no
	// validation. (A pointer and a length, not a slice: the message fits
	// its allocation size class.)
	checkedArgs *byte
	checkedLen  int
}

// argsChecked reports whether args are the arguments p was decoded with,
// inside a validated message (the same bytes, not a copy or a replacement
// set by middleware).
func (p *Params) argsChecked(args json.RawMessage) bool {
	return p != nil && len(args) > 0 && len(args) == p.checkedLen && &args[0] == p.checkedArgs
}

// RequestMeta is a request's _meta.
type RequestMeta struct {
	ProgressToken      json.RawMessage              `json:"progressToken"`
	ProtocolVersion    *string                      `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities *protocol.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel           *LogLevel                    `json:"io.modelcontextprotocol/logLevel"`
	// ComponentVersion is the version of the tool, prompt or resource
	// asked for (MetaComponentVersion); nil asks for the highest.
	ComponentVersion *string `json:"io.github.sakemcp/version"`

	// W3C Trace Context and Baggage, for middleware that continues the
	// caller's trace.
	TraceParent string `json:"traceparent,omitempty"`
	TraceState  string `json:"tracestate,omitempty"`
	Baggage     string `json:"baggage,omitempty"`

	// The client's self-description, raw, decoded on demand by
	// Request.ClientInfo (most requests never need it).
	clientInfo  []byte
	decodedInfo *protocol.Implementation
}
