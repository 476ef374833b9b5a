package sake

import (
	"encoding/json"
)

// Reserved _meta keys.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Implementation names a client or server program.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
}

// ClientCapabilities is what a client declared it can do: per request in
// the modern era, once at initialize in the legacy one.
type ClientCapabilities struct {
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Tasks is the 2025-11-25 tasks capability, kept raw.
	Tasks json.RawMessage `json:"tasks,omitempty"`
}

// RootsCapability says the client answers roots/list.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability says the client answers sampling/createMessage.
type SamplingCapability struct {
	Context json.RawMessage `json:"context,omitempty"`
	Tools   json.RawMessage `json:"tools,omitempty"`
}

// ElicitationCapability says the client answers elicitation/create. An
// empty value means form mode only.
type ElicitationCapability struct {
	Form json.RawMessage `json:"form,omitempty"`
	URL  json.RawMessage `json:"url,omitempty"`
}

// SupportsForm reports whether form-mode elicitation was declared.
func (e *ElicitationCapability) SupportsForm() bool {
	return e != nil && (e.Form != nil || e.URL == nil)
}

// SupportsURL reports whether URL-mode elicitation was declared.
func (e *ElicitationCapability) SupportsURL() bool { return e != nil && e.URL != nil }

// HasExtension reports whether the client declared the extension id.
func (c *ClientCapabilities) HasExtension(id string) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[id]
	return ok
}

// LogLevel is a syslog severity used by notifications/message.
type LogLevel string

// The eight levels, from least to most severe.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

// severity returns 1..8 for a known level and 0 otherwise.
func (l LogLevel) severity() int {
	switch l {
	case LevelDebug:
		return 1
	case LevelInfo:
		return 2
	case LevelNotice:
		return 3
	case LevelWarning:
		return 4
	case LevelError:
		return 5
	case LevelCritical:
		return 6
	case LevelAlert:
		return 7
	case LevelEmergency:
		return 8
	}
	return 0
}

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
	Ref      *CompleteRef      `json:"ref"`
	Argument *CompleteArgument `json:"argument"`
	Context  *CompleteContext  `json:"context"`

	// logging/setLevel
	Level LogLevel `json:"level"`

	// initialize
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    *ClientCapabilities `json:"capabilities"`
	ClientInfo      *Implementation     `json:"clientInfo"`

	// subscriptions/listen
	Notifications json.RawMessage `json:"notifications"`

	// tasks/*
	TaskID string          `json:"taskId"`
	Task   json.RawMessage `json:"task"`

	// notifications/cancelled
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`

	// checkedArgs is Arguments as decoded from a message already
	// validated as a whole, so decoding it again needs no validation.
	checkedArgs json.RawMessage
}

// argsChecked reports whether args are the arguments p was decoded with,
// inside a validated message (the same bytes, not a copy or a replacement
// set by middleware).
func (p *Params) argsChecked(args json.RawMessage) bool {
	return p != nil && len(args) > 0 && len(args) == len(p.checkedArgs) && &args[0] == &p.checkedArgs[0]
}

// RequestMeta is a request's _meta.
type RequestMeta struct {
	ProgressToken      json.RawMessage     `json:"progressToken"`
	ProtocolVersion    *string             `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities *ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel           *LogLevel           `json:"io.modelcontextprotocol/logLevel"`

	// W3C Trace Context and Baggage, for middleware that continues the
	// caller's trace.
	TraceParent string `json:"traceparent,omitempty"`
	TraceState  string `json:"tracestate,omitempty"`
	Baggage     string `json:"baggage,omitempty"`

	// The client's self-description, raw, decoded on demand by
	// Request.ClientInfo (most requests never need it).
	clientInfo  []byte
	decodedInfo *Implementation
}

// CompleteRef names what completion/complete completes.
type CompleteRef struct {
	Type string `json:"type"` // "ref/prompt" or "ref/resource"
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries the values of arguments already filled in.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// validID reports whether raw is a JSON string or number, the only ids
// JSON-RPC requests may carry in MCP.
// MaxIDBytes is the longest request id or progress token the dispatcher
// accepts, measured as JSON text (a string's quotes and escapes count).
// Both are echoed in every reply and notification, and kept while the
// request runs and for replay, so a longer one is refused: an id with
// -32600, a progress token with -32602.
const MaxIDBytes = 256

func validID(raw json.RawMessage) bool {
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
