package protocol

import (
	"fmt"
	"strings"
	"time"
)

// InsufficientScopeError says the caller's token lacks scopes the
// component needs. Scopes lists every scope the component requires, so one
// new authorization can cover them all. Over HTTP it becomes 403 with
// WWW-Authenticate: Bearer error="insufficient_scope", scope="...".
type InsufficientScopeError struct {
	Scopes []string
	// Challenge is the raw WWW-Authenticate header a client received with
	// the error over HTTP ("" otherwise).
	Challenge string
	// ResourceMetadata is the protected resource metadata URL (RFC 9728)
	// of the challenge, when a client received one over HTTP.
	ResourceMetadata string
}

// Error implements error.
func (e *InsufficientScopeError) Error() string {
	return "insufficient scope: this needs a token with the scopes " + strings.Join(e.Scopes, " ")
}

// InsufficientAuthenticationError says the caller signed in too weakly or
// too long ago (RFC 9470). Over HTTP it becomes 401 with
// WWW-Authenticate: Bearer error="insufficient_user_authentication",
// acr_values="...", max_age=N.
type InsufficientAuthenticationError struct {
	ACRValues []string
	MaxAge    *time.Duration
	// Challenge is the raw WWW-Authenticate header a client received with
	// the error over HTTP ("" otherwise).
	Challenge string
	// ResourceMetadata is the protected resource metadata URL (RFC 9728)
	// of the challenge, when a client received one over HTTP.
	ResourceMetadata string
}

// Error implements error.
func (e *InsufficientAuthenticationError) Error() string {
	var parts []string
	if len(e.ACRValues) > 0 {
		parts = append(parts, "an authentication of class "+strings.Join(e.ACRValues, " or "))
	}
	if e.MaxAge != nil {
		parts = append(parts, fmt.Sprintf("a sign-in within the last %s", *e.MaxAge))
	}
	return "insufficient user authentication: this needs " + strings.Join(parts, " and ")
}

// Application error codes for authorization failures carried as JSON-RPC
// errors (in memory and over stdio; HTTP answers with 401 or 403 instead).
const (
	CodeInsufficientScope          = -31403
	CodeInsufficientAuthentication = -31401
)

// AuthErrorFrom decodes the JSON-RPC form of an authorization error back
// into *InsufficientScopeError or *InsufficientAuthenticationError, for
// clients; other errors are returned unchanged.
func AuthErrorFrom(e *Error) error {
	data, _ := e.Data.(map[string]any)
	switch e.Code {
	case CodeInsufficientScope:
		var scopes []string
		if s, ok := data["scope"].(string); ok && s != "" {
			scopes = strings.Fields(s)
		}
		return &InsufficientScopeError{Scopes: scopes}
	case CodeInsufficientAuthentication:
		out := &InsufficientAuthenticationError{}
		if s, ok := data["acr_values"].(string); ok && s != "" {
			out.ACRValues = strings.Fields(s)
		}
		if n, ok := data["max_age"].(float64); ok {
			d := time.Duration(n) * time.Second
			out.MaxAge = &d
		}
		return out
	}
	return e
}
