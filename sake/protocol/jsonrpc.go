package protocol

import (
	"encoding/json"
	"strconv"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

// JSON-RPC 2.0 framing. Every message the server, the client and the
// test client write is opened by one of the Append…Head functions (or
// written whole by AppendRequest, AppendNotification, AppendResult or
// AppendError), and every message they read without decoding it fully is
// looked at through Peek.

// AppendRequestHead appends the opening of a request up to its params:
// {"jsonrpc":"2.0","id":ID,"method":METHOD,"params": — the caller appends
// the params and then '}'. id is the request id's JSON text.
func AppendRequestHead(dst, id []byte, method string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"method":`...)
	dst = AppendString(dst, method)
	return append(dst, `,"params":`...)
}

// AppendRequest appends a whole request; params is JSON text, or nil for
// a request without params.
func AppendRequest(dst, id []byte, method string, params []byte) []byte {
	if params == nil {
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = appendID(dst, id)
		dst = append(dst, `,"method":`...)
		dst = AppendString(dst, method)
		return append(dst, '}')
	}
	dst = AppendRequestHead(dst, id, method)
	dst = append(dst, params...)
	return append(dst, '}')
}

// AppendNotificationHead appends the opening of a notification up to its
// params: {"jsonrpc":"2.0","method":METHOD,"params": — the caller appends
// the params and then '}'.
func AppendNotificationHead(dst []byte, method string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = AppendString(dst, method)
	return append(dst, `,"params":`...)
}

// AppendNotification appends a whole notification; params is JSON text,
// or nil for a notification without params.
func AppendNotification(dst []byte, method string, params []byte) []byte {
	if params == nil {
		dst = append(dst, `{"jsonrpc":"2.0","method":`...)
		dst = AppendString(dst, method)
		return append(dst, '}')
	}
	dst = AppendNotificationHead(dst, method)
	dst = append(dst, params...)
	return append(dst, '}')
}

// AppendResultHead appends the opening of a response up to its result:
// {"jsonrpc":"2.0","id":ID,"result": — the caller appends the result and
// then '}'. An empty id is written as null.
func AppendResultHead(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	return append(dst, `,"result":`...)
}

// AppendResult appends a whole response carrying result, JSON text.
func AppendResult(dst, id, result []byte) []byte {
	dst = AppendResultHead(dst, id)
	dst = append(dst, result...)
	return append(dst, '}')
}

// AppendError appends an error response to the request id (null when
// empty). Data that cannot be encoded is written as null and its error
// returned beside the message, which is complete either way.
func AppendError(dst, id []byte, e *Error) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, e.Message)
	var err error
	if e.Data != nil {
		dst = append(dst, `,"data":`...)
		mark := len(dst)
		if dst, err = AppendAny(dst, e.Data); err != nil {
			dst = append(dst[:mark], "null"...)
		}
	}
	return append(dst, "}}"...), err
}

func appendID(dst, id []byte) []byte {
	if len(id) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, id...)
}

// Kind is what a JSON-RPC message is.
type Kind uint8

// The kinds of message.
const (
	// KindInvalid is not a JSON-RPC message: not an object, or an
	// object with neither a method nor an id.
	KindInvalid Kind = iota
	// KindRequest has a method and an id and gets a response.
	KindRequest
	// KindNotification has a method and no id.
	KindNotification
	// KindResponse has an id and no method: it answers a request.
	KindResponse
	// KindBatch is a JSON array of messages (2025-03-26 only).
	KindBatch
)

// Envelope is what Peek finds in a message: its members as raw JSON
// text, sub-slices of the message (nil when absent).
type Envelope struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage

	hasMethod bool
}

// Kind tells a request, a notification and a response apart.
func (e *Envelope) Kind() Kind {
	switch {
	case e.hasMethod && e.ID != nil:
		return KindRequest
	case e.hasMethod:
		return KindNotification
	case e.ID != nil:
		return KindResponse
	}
	return KindInvalid
}

// IsResponse reports whether the message answers a request: it has an
// id (not null) and no method.
func (e *Envelope) IsResponse() bool {
	return !e.hasMethod && e.ID != nil && string(e.ID) != "null"
}

// Peek reads the envelope of one JSON-RPC message without decoding its
// params or result. It fails on text that is not a JSON object, or whose
// method is not a string.
func Peek(msg []byte) (Envelope, error) {
	var env Envelope
	err := jsonscan.Members(msg, func(key, v []byte) error {
		switch string(key) {
		case "id":
			env.ID = v
		case "method":
			if jsonscan.Kind(v) == jsonscan.Null {
				return nil
			}
			s, err := jsonscan.Unquote(v)
			if err != nil {
				return err
			}
			env.Method, env.hasMethod = s, true
		case "params":
			env.Params = v
		case "result":
			env.Result = v
		case "error":
			env.Error = v
		}
		return nil
	})
	return env, err
}

// InputRequest is one question a server asks a client, as an
// input_required result, a task's input requests and a legacy request
// carry it: the method (elicitation/create, sampling/createMessage,
// roots/list) and its params.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// ErrorBody renders a JSON-RPC error response with a null id: what a
// transport answers to input it refuses before the server sees a message
// (a body too large or unreadable, a line over the limit, a request its
// HTTP checks turn away). Everything else the server answers itself.
func ErrorBody(code int, message string) []byte {
	b, _ := AppendError(make([]byte, 0, 64+len(message)), nil, &Error{Code: code, Message: message})
	return b
}
