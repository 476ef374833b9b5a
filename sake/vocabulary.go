package sake

import (
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// The MCP vocabulary lives in package protocol, which the server, the
// client and the test client share. The names below are the ones a tool
// author writes; everything else is spelled protocol.X.

// Content a tool or prompt returns.
type (
	// Content is one block of a tool result or prompt message.
	Content = protocol.Content
	// TextContent is a block of text.
	TextContent = protocol.TextContent
	// ImageContent is an image, carried base64-encoded.
	ImageContent = protocol.ImageContent
	// AudioContent is a sound, carried base64-encoded.
	AudioContent = protocol.AudioContent
	// ResourceLink points at a resource the client may read.
	ResourceLink = protocol.ResourceLink
	// EmbeddedResource carries a resource's contents inline.
	EmbeddedResource = protocol.EmbeddedResource
	// ResourceContents is what a resource returns for one URI.
	ResourceContents = protocol.ResourceContents
	// Annotations tell a client how to use a content block or resource.
	Annotations = protocol.Annotations
	// Icon is an image a client may show beside a component.
	Icon = protocol.Icon
	// Meta is the _meta object of a component, content block or result.
	Meta = protocol.Meta
	// Role is the speaker of a prompt message or the audience of content.
	Role = protocol.Role
)

// The two roles.
const (
	RoleUser      = protocol.RoleUser
	RoleAssistant = protocol.RoleAssistant
)

// Text returns a text content block.
func Text(s string) *TextContent { return protocol.Text(s) }

// Textf returns a text content block formatted as fmt.Sprintf does.
func Textf(format string, args ...any) *TextContent { return protocol.Textf(format, args...) }

// Image returns an image content block; data is the raw image, sent base64.
func Image(data []byte, mimeType string) *ImageContent { return protocol.Image(data, mimeType) }

// Audio returns an audio content block; data is the raw audio, sent base64.
func Audio(data []byte, mimeType string) *AudioContent { return protocol.Audio(data, mimeType) }

// Results a tool, prompt or completion handler returns.
type (
	// ToolResult is the full result of a tool call.
	ToolResult = protocol.ToolResult
	// ToolError is what a client sees when a tool answered with isError.
	ToolError = protocol.ToolError
	// ToolAnnotations are hints about a tool's behaviour.
	ToolAnnotations = protocol.ToolAnnotations
	// PromptResult is the result of prompts/get.
	PromptResult = protocol.PromptResult
	// PromptMessage is one message of a prompt.
	PromptMessage = protocol.PromptMessage
	// PromptArgument is one argument of a prompt.
	PromptArgument = protocol.PromptArgument
	// CompleteRequest is what a completion handler is asked.
	CompleteRequest = protocol.CompleteRequest
	// Completion is the answer to completion/complete.
	Completion = protocol.Completion
)

// TextResult returns a tool result of one text block.
func TextResult(s string) *ToolResult { return protocol.TextResult(s) }

// ErrorResult returns a tool result with isError set and one text block.
func ErrorResult(format string, args ...any) *ToolResult {
	return protocol.ErrorResult(format, args...)
}

// UserMessage returns a prompt message from the user.
func UserMessage(c Content) PromptMessage { return protocol.UserMessage(c) }

// AssistantMessage returns a prompt message from the assistant.
func AssistantMessage(c Content) PromptMessage { return protocol.AssistantMessage(c) }

// Error is a JSON-RPC error: returned from a handler or middleware, it
// answers the request with a protocol error.
type Error = protocol.Error

// JSON-RPC and MCP error codes (see package protocol for each).
const (
	CodeParseError                      = protocol.CodeParseError
	CodeInvalidRequest                  = protocol.CodeInvalidRequest
	CodeMethodNotFound                  = protocol.CodeMethodNotFound
	CodeInvalidParams                   = protocol.CodeInvalidParams
	CodeInternalError                   = protocol.CodeInternalError
	CodeResourceNotFound                = protocol.CodeResourceNotFound
	CodeServerBusy                      = protocol.CodeServerBusy
	CodeRateLimited                     = protocol.CodeRateLimited
	CodeHeaderMismatch                  = protocol.CodeHeaderMismatch
	CodeMissingRequiredClientCapability = protocol.CodeMissingRequiredClientCapability
	CodeUnsupportedProtocolVersion      = protocol.CodeUnsupportedProtocolVersion
	CodeInsufficientScope               = protocol.CodeInsufficientScope
	CodeInsufficientAuthentication      = protocol.CodeInsufficientAuthentication
)

// ErrResourceNotFound is returned by a resource handler (or wrapped by
// one) to say that the URI names nothing.
var ErrResourceNotFound = protocol.ErrResourceNotFound

// NewError returns a JSON-RPC error with the given code and message.
func NewError(code int, format string, args ...any) *Error {
	return protocol.NewError(code, format, args...)
}

// InvalidParams returns a -32602 error.
func InvalidParams(format string, args ...any) *Error {
	return protocol.InvalidParams(format, args...)
}

// RateLimited returns a -32029 error saying which limit was hit and when
// to retry.
func RateLimited(limit string, retry time.Duration) *Error { return protocol.RateLimited(limit, retry) }

// Questions a tool asks the user, the model or the client.
type (
	// ElicitAction is the user's answer to an elicitation.
	ElicitAction = protocol.ElicitAction
	// SamplingRequest asks the client's model for a completion.
	SamplingRequest = protocol.SamplingRequest
	// SamplingMessage is one message of a sampling conversation.
	SamplingMessage = protocol.SamplingMessage
	// SamplingResult is the model's answer.
	SamplingResult = protocol.SamplingResult
	// Root is a directory or file the client lets the server work with.
	Root = protocol.Root
)

// The three outcomes of an elicitation.
const (
	Accept  = protocol.Accept
	Decline = protocol.Decline
	Cancel  = protocol.Cancel
)

// Who the caller is and what it declared.
type (
	// Era tells which generation of the protocol a message belongs to.
	Era = protocol.Era
	// LogLevel is a syslog severity used by notifications/message.
	LogLevel = protocol.LogLevel
)

// The eras.
const (
	EraUnknown = protocol.EraUnknown
	EraModern  = protocol.EraModern
	EraLegacy  = protocol.EraLegacy
)

// The eight log levels, from least to most severe.
const (
	LevelDebug     = protocol.LevelDebug
	LevelInfo      = protocol.LevelInfo
	LevelNotice    = protocol.LevelNotice
	LevelWarning   = protocol.LevelWarning
	LevelError     = protocol.LevelError
	LevelCritical  = protocol.LevelCritical
	LevelAlert     = protocol.LevelAlert
	LevelEmergency = protocol.LevelEmergency
)

// MCP Apps: who sees a tool with a view, and what its view may do.
type (
	// Visibility says who may see and call a tool that has a view.
	Visibility = protocol.Visibility
	// Permission is a browser capability a view asks its host for.
	Permission = protocol.Permission
	// CSP lists the origins a view may reach beyond its own document.
	CSP = protocol.CSP
)

// The visibilities of MCP Apps.
const (
	VisibleToModel = protocol.VisibleToModel
	VisibleToApp   = protocol.VisibleToApp
)

// The permissions a view may ask for.
const (
	PermissionCamera         = protocol.PermissionCamera
	PermissionMicrophone     = protocol.PermissionMicrophone
	PermissionGeolocation    = protocol.PermissionGeolocation
	PermissionClipboardWrite = protocol.PermissionClipboardWrite
)

// Task statuses ([backend.Task.Status]). The last three are terminal.
const (
	TaskWorking       = protocol.TaskWorking
	TaskInputRequired = protocol.TaskInputRequired
	TaskCompleted     = protocol.TaskCompleted
	TaskFailed        = protocol.TaskFailed
	TaskCancelled     = protocol.TaskCancelled
)

// Identity is who is calling, as the transport established it: from a
// verified access token over HTTP (plug.Authorization), from the host over
// stdio, or simulated by saketest. ctx.Identity() returns it; nil is an
// anonymous caller. It is [protocol.Identity], whose fields are:
//
//   - Subject: the token's sub, the person (empty for a machine client
//     acting for itself);
//   - ClientID: the OAuth client the token was issued to;
//   - Scopes: the token's scopes (HasScope checks one);
//   - ACR and AuthTime: how and when the person signed in (RFC 9470);
//   - Claims: the token's other claims (role, tenant...);
//   - Principal: the host's own value for the caller;
//   - FromToken: whether components' requirements apply to it.
//
// Owner() is the key that sessions and tasks belong to.
type Identity = protocol.Identity
