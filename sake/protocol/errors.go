package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700 // the message is not valid JSON
	CodeInvalidRequest = -32600 // not a valid JSON-RPC request
	CodeMethodNotFound = -32601 // unknown, removed or unadvertised method
	CodeInvalidParams  = -32602 // bad params, unknown tool or prompt, bad cursor or state
	CodeInternalError  = -32603 // the server failed

	// CodeResourceNotFound is the 2025-11-25 code for an unknown resource.
	// The modern era answers CodeInvalidParams instead.
	CodeResourceNotFound = -32002

	CodeHeaderMismatch                  = -32020 // an HTTP header disagrees with the body
	CodeMissingRequiredClientCapability = -32021 // the request needs a capability the client did not declare
	CodeUnsupportedProtocolVersion      = -32022 // the requested revision is not served

	// CodeServerBusy refuses a message for lack of room: too many
	// requests in flight on the session or connection, or too many
	// sessions; or because what the server needs for it is unavailable
	// right now (the session store). Retry once some have finished, or
	// a little later.
	CodeServerBusy = -32000
)

// Error is a JSON-RPC error. Handlers and middleware return it to answer a
// request with a protocol error; any other error returned from a tool becomes
// a tool result with isError set, the way the model can read and correct.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`

	cause error // why the server refused, when not for the request
}

// Unwrap returns why the server refused the request when the reason lies
// outside it (ErrTooManySessions, ErrSessionStore, ...), or nil.
func (e *Error) Unwrap() error { return e.cause }

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Data != nil {
		if b, err := json.Marshal(e.Data); err == nil {
			return fmt.Sprintf("mcp error %d: %s (data: %s)", e.Code, e.Message, b)
		}
	}
	return fmt.Sprintf("mcp error %d: %s", e.Code, e.Message)
}

// Is makes errors.Is match two *Error values with the same code, so
// errors.Is(err, &sake.Error{Code: sake.CodeInvalidParams}) works.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
	}
	return false
}

// ServerBusy returns a -32000 error refusing a message for lack of room
// or because something the server needs is unavailable; Unwrap returns
// cause, the reason outside the request.
func ServerBusy(message string, cause error) *Error {
	return &Error{Code: CodeServerBusy, Message: message, cause: cause}
}

// NewError returns a JSON-RPC error with the given code and message.
func NewError(code int, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Message: format}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams returns a -32602 error.
func InvalidParams(format string, args ...any) *Error {
	return NewError(CodeInvalidParams, format, args...)
}

// ErrResourceNotFound is returned by a resource handler (or wrapped by one) to
// say that the URI names nothing. The dispatcher answers -32602 in the modern
// era and -32002 in the legacy one, with data.uri set.
var ErrResourceNotFound = errors.New("resource not found")

// ToolError is what a client sees when a tool answered with isError: the
// tool ran (or its arguments were invalid) and its result explains why it
// failed. The in-memory test client returns it beside the result.
type ToolError struct {
	Result *ToolResult
}

// Error returns the text of the result, as the model reads it; a result
// without text is described by String.
func (e *ToolError) Error() string {
	if e.Result == nil {
		return "the tool failed without a result"
	}
	if s := e.Result.Text(); s != "" {
		return s
	}
	return e.Result.String()
}
