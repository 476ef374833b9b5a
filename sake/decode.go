package sake

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The dispatcher decodes each message once, walking it with jsonscan:
// raw values (id, arguments, progress token) stay slices of the message,
// known method names and protocol versions are interned, and only the
// rare members (initialize's capabilities, completion refs) go through
// encoding/json.

// decodeError says why a message could not be decoded.
type decodeError struct {
	code    int // CodeParseError, CodeInvalidRequest or CodeInvalidParams
	message string
}

// interned strings, so that decoding the common ones allocates nothing.
var interned = func() map[string]string {
	m := map[string]string{}
	for _, s := range append(append([]string{}, supportedVersions...),
		"server/discover", "initialize", "ping", "logging/setLevel", "tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
		"resources/unsubscribe", "prompts/list", "prompts/get", "completion/complete",
		"subscriptions/listen", "notifications/initialized", "notifications/cancelled",
		"notifications/progress", "notifications/roots/list_changed", "tasks/get", "tasks/update",
		"tasks/cancel", "tasks/result", "tasks/list", "debug", "info", "notice", "warning", "error",
		"critical", "alert", "emergency") {
		m[s] = s
	}
	return m
}()

// versionPtrs lets _meta point at a shared copy of a known version.
var versionPtrs = func() map[string]*string {
	m := map[string]*string{}
	for _, v := range supportedVersions {
		v := v
		m[v] = &v
	}
	return m
}()

// str decodes a JSON string value, interning known ones.
func str(v []byte) (string, bool) {
	if jsonscan.Kind(v) != jsonscan.String {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		if s, ok := interned[string(inner)]; ok {
			return s, true
		}
		return string(inner), true
	}
	s, err := jsonscan.Unquote(v)
	return s, err == nil
}

// decodeMessage fills env from msg.
func decodeMessage(msg []byte, env *envelope, params *Params, meta *RequestMeta) *decodeError {
	var bad *decodeError
	err := jsonscan.Members(msg, func(key, v []byte) error {
		switch string(key) {
		case "jsonrpc":
			if string(v) == `"2.0"` {
				env.JSONRPC = "2.0"
			} else {
				env.JSONRPC = "?"
			}
		case "id":
			env.ID = v
		case "method":
			s, ok := str(v)
			if !ok {
				bad = &decodeError{CodeInvalidRequest, "Invalid request: method must be a string"}
				return nil
			}
			env.method = s
			env.Method = &env.method
		case "params":
			switch jsonscan.Kind(v) {
			case jsonscan.Object:
				p := params
				if d := decodeParams(v, p, meta); d != nil && bad == nil {
					bad = d
				}
				env.Params = p
			case jsonscan.Null:
			default:
				if bad == nil {
					bad = &decodeError{CodeInvalidParams, "Invalid params: params must be an object"}
				}
			}
		case "result":
			env.Result = v
		case "error":
			env.Error = v
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, jsonscan.ErrNotObject) {
			if t := bytes.TrimLeft(msg, " \t\r\n"); len(t) > 0 && t[0] == '[' {
				return &decodeError{CodeInvalidRequest, "Invalid request: batches are not supported; send one JSON-RPC message at a time"}
			}
			return &decodeError{CodeInvalidRequest, "Invalid request: a JSON-RPC message must be a JSON object"}
		}
		return &decodeError{CodeParseError, "Parse error: the message is not valid JSON"}
	}
	return bad
}

func paramError(field, want string) *decodeError {
	return &decodeError{CodeInvalidParams, "Invalid params: " + field + " must be " + want}
}

// decodeParams fills p from the params object v.
func decodeParams(v []byte, p *Params, meta *RequestMeta) *decodeError {
	var bad *decodeError
	fail := func(d *decodeError) {
		if bad == nil {
			bad = d
		}
	}
	strField := func(dst *string, name string, raw []byte) {
		if jsonscan.Kind(raw) == jsonscan.Null {
			return
		}
		s, ok := str(raw)
		if !ok {
			fail(paramError(name, "a string"))
			return
		}
		*dst = s
	}
	optString := func(dst **string, name string, raw []byte) {
		if jsonscan.Kind(raw) == jsonscan.Null {
			return
		}
		var v string
		strField(&v, name, raw)
		*dst = &v
	}
	viaJSON := func(dst any, name, want string, raw []byte) {
		if jsonscan.Kind(raw) == jsonscan.Null {
			return
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			fail(paramError(name, want))
		}
	}
	// v lies inside the message decodeMessage has validated.
	_ = jsonscan.MembersValid(v, func(key, raw []byte) error {
		switch string(key) {
		case "_meta":
			switch jsonscan.Kind(raw) {
			case jsonscan.Object:
				m := meta
				if d := decodeMeta(raw, m); d != nil {
					fail(d)
				}
				p.Meta = m
			case jsonscan.Null:
			default:
				fail(paramError("_meta", "an object"))
			}
		case "name":
			strField(&p.Name, "name", raw)
		case "arguments":
			if jsonscan.Kind(raw) != jsonscan.Null {
				p.Arguments = raw
				p.checkedArgs, p.checkedLen = &raw[0], len(raw)
			}
		case "uri":
			strField(&p.URI, "uri", raw)
		case "cursor":
			optString(&p.Cursor, "cursor", raw)
		case "inputResponses":
			if jsonscan.Kind(raw) != jsonscan.Null {
				p.InputResponses = raw
			}
		case "requestState":
			optString(&p.RequestState, "requestState", raw)
		case "ref":
			viaJSON(&p.Ref, "ref", "an object with type and name or uri", raw)
		case "argument":
			viaJSON(&p.Argument, "argument", "an object with name and value", raw)
		case "context":
			viaJSON(&p.Context, "context", "an object", raw)
		case "level":
			var s string
			strField(&s, "level", raw)
			p.Level = LogLevel(s)
		case "protocolVersion":
			strField(&p.ProtocolVersion, "protocolVersion", raw)
		case "capabilities":
			viaJSON(&p.Capabilities, "capabilities", "an object", raw)
		case "clientInfo":
			viaJSON(&p.ClientInfo, "clientInfo", "an object with name and version", raw)
		case "notifications":
			p.Notifications = raw
		case "taskId":
			strField(&p.TaskID, "taskId", raw)
		case "task":
			p.Task = raw
		case "requestId":
			p.RequestID = raw
		case "reason":
			strField(&p.Reason, "reason", raw)
		}
		return nil
	})
	return bad
}

// emptyCapabilities is shared by every request that declares none ({}).
var emptyCapabilities = &protocol.ClientCapabilities{}

func decodeMeta(v []byte, m *RequestMeta) *decodeError {
	var bad *decodeError
	_ = jsonscan.MembersValid(v, func(key, raw []byte) error {
		switch string(key) {
		case "progressToken":
			switch jsonscan.Kind(raw) {
			case jsonscan.String, jsonscan.Number:
				if len(raw) > protocol.MaxIDBytes {
					bad = paramError("_meta.progressToken", "a string or a number of at most 256 bytes")
					return nil
				}
				m.ProgressToken = raw
			case jsonscan.Null:
			default:
				bad = paramError("_meta.progressToken", "a string or a number")
			}
		case protocol.MetaProtocolVersion:
			if s, ok := str(raw); ok {
				if p, known := versionPtrs[s]; known {
					m.ProtocolVersion = p
				} else {
					m.ProtocolVersion = &s
				}
			} else if jsonscan.Kind(raw) != jsonscan.Null {
				bad = paramError(`_meta["`+protocol.MetaProtocolVersion+`"]`, "a string")
			}
		case protocol.MetaClientCapabilities:
			switch {
			case jsonscan.Kind(raw) == jsonscan.Null:
			case isEmptyObject(raw):
				m.ClientCapabilities = emptyCapabilities
			default:
				c, err := capabilitiesOf(raw)
				if err != nil {
					bad = paramError(`_meta["`+protocol.MetaClientCapabilities+`"]`, "a protocol.ClientCapabilities object")
				} else {
					m.ClientCapabilities = c
				}
			}
		case protocol.MetaClientInfo:
			if jsonscan.Kind(raw) == jsonscan.Object {
				m.clientInfo = raw
			}
		case "traceparent":
			m.TraceParent, _ = str(raw)
		case "tracestate":
			m.TraceState, _ = str(raw)
		case "baggage":
			m.Baggage, _ = str(raw)
		case protocol.MetaComponentVersion:
			if s, ok := str(raw); ok && len(s) <= maxVersionBytes {
				m.ComponentVersion = &s
			} else if jsonscan.Kind(raw) != jsonscan.Null {
				bad = paramError(`_meta["`+protocol.MetaComponentVersion+`"]`, "a string of at most 64 bytes")
			}
		case protocol.MetaLogLevel:
			if s, ok := str(raw); ok {
				l := LogLevel(s)
				m.LogLevel = &l
			} else if jsonscan.Kind(raw) != jsonscan.Null {
				bad = paramError(`_meta["`+protocol.MetaLogLevel+`"]`, "a string")
			}
		}
		return nil
	})
	return bad
}

// capsCache remembers decoded client capabilities by their JSON: a client
// sends the same ones with every request. The decoded values are shared and
// never modified. The cache is bounded in bytes: only values of at most
// maxCachedCapabilityBytes are kept, and when the keys held reach
// maxCapabilityCacheBytes the cache starts over, so whatever callers send,
// it never holds more than that (plus the decoded values of those bytes).
var capsCache struct {
	sync.RWMutex
	m     map[string]*protocol.ClientCapabilities
	bytes int
}

const (
	// maxCachedCapabilityBytes is the largest clientCapabilities JSON the
	// cache keeps; larger ones are decoded on every request.
	maxCachedCapabilityBytes = 2 << 10
	// maxCapabilityCacheBytes bounds the JSON held by the cache, process-wide.
	maxCapabilityCacheBytes = 256 << 10
)

func capabilitiesOf(raw []byte) (*protocol.ClientCapabilities, error) {
	cacheable := len(raw) <= maxCachedCapabilityBytes
	if cacheable {
		capsCache.RLock()
		c := capsCache.m[string(raw)]
		capsCache.RUnlock()
		if c != nil {
			return c, nil
		}
	}
	c := &protocol.ClientCapabilities{}
	if err := json.Unmarshal(raw, c); err != nil {
		return nil, err
	}
	if !cacheable {
		return c, nil
	}
	capsCache.Lock()
	if capsCache.m == nil || capsCache.bytes+len(raw) > maxCapabilityCacheBytes {
		capsCache.m = make(map[string]*protocol.ClientCapabilities)
		capsCache.bytes = 0
	}
	if _, ok := capsCache.m[string(raw)]; !ok {
		capsCache.m[string(raw)] = c
		capsCache.bytes += len(raw)
	}
	capsCache.Unlock()
	return c, nil
}

func isEmptyObject(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}

// info decodes the client's self-description from _meta, on demand.
func (m *RequestMeta) info() *protocol.Implementation {
	if m == nil || m.clientInfo == nil {
		return nil
	}
	if m.decodedInfo == nil {
		var impl protocol.Implementation
		if json.Unmarshal(m.clientInfo, &impl) == nil {
			m.decodedInfo = &impl
		}
	}
	return m.decodedInfo
}

// supportedVersions lists every revision served, newest first, as
// server/discover and -32022 errors report it.
var supportedVersions = protocol.SupportedVersions()
