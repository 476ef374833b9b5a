package auth

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error codes carried in the error parameter of a WWW-Authenticate challenge
// (RFC 6750 §3.1, RFC 9470 §3, RFC 9449 §7.1).
const (
	// CodeInvalidRequest means the Authorization header is malformed (400).
	CodeInvalidRequest = "invalid_request"
	// CodeInvalidToken means the token is expired, revoked, malformed, not
	// for this resource, or otherwise not acceptable (401).
	CodeInvalidToken = "invalid_token"
	// CodeInsufficientScope means the token is valid but lacks a scope (403).
	CodeInsufficientScope = "insufficient_scope"
	// CodeInsufficientUserAuthentication means the sign-in behind the
	// token is too weak or too old (401, RFC 9470).
	CodeInsufficientUserAuthentication = "insufficient_user_authentication"
	// CodeInvalidDPoPProof means the DPoP proof is missing or invalid
	// (401, RFC 9449).
	CodeInvalidDPoPProof = "invalid_dpop_proof"
)

// Error is an authorization failure: what the client is told, in the
// WWW-Authenticate challenge and the response status, and (for logs only)
// why. Status is 400, 401 or 403; Code is one of the Code constants, or empty
// when the request carried no credentials (RFC 6750 §3.1). Nothing beyond the
// code and Description ever reaches the client, so a verifier can wrap its
// precise reason without leaking it.
type Error struct {
	// Status is the HTTP status to answer: 400, 401 or 403.
	Status int
	// Code is the error code for the challenge, empty for a request
	// without credentials.
	Code string
	// Description is an optional, client-safe explanation rendered as
	// error_description. The constructors leave it empty.
	Description string
	// Scopes are all the scopes the operation needs, rendered as scope.
	Scopes []string
	// ACRValues are the acceptable authentication context classes in
	// order of preference, rendered as acr_values (RFC 9470).
	ACRValues []string
	// MaxAge is the longest acceptable time since the user last signed
	// in, rendered as max_age in whole seconds (RFC 9470).
	MaxAge *time.Duration
	// DPoP reports that the failure concerns proof of possession, so the
	// challenge should use the DPoP scheme (RFC 9449 §7.1).
	DPoP bool

	internal error
}

// Error describes the failure by status and code, without the internal cause.
func (e *Error) Error() string {
	code := e.Code
	if code == "" {
		code = "credentials required"
	}
	if e.Description != "" {
		return fmt.Sprintf("auth: %d %s: %s", e.Status, code, e.Description)
	}
	return fmt.Sprintf("auth: %d %s", e.Status, code)
}

// Unwrap returns the internal cause. It is for logs only: never send it to
// the client.
func (e *Error) Unwrap() error { return e.internal }

// Is makes errors.Is match an *Error with the same code (and the same status,
// when the target's is set), e.g. errors.Is(err, &auth.Error{Code:
// auth.CodeInvalidToken}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Status == 0 || t.Status == e.Status)
}

// message is the client-safe text for a JSON body: the Description, or a
// generic sentence for the code.
func (e *Error) message() string {
	if e.Description != "" {
		return e.Description
	}
	switch e.Code {
	case "":
		return "authorization is required"
	case CodeInvalidRequest:
		return "the authorization request is malformed"
	case CodeInvalidToken:
		return "the access token is not valid"
	case CodeInsufficientScope:
		return "the access token lacks a required scope"
	case CodeInsufficientUserAuthentication:
		return "a stronger or more recent authentication is required"
	case CodeInvalidDPoPProof:
		return "the DPoP proof is not valid"
	}
	return "authorization failed"
}

// MissingToken is the answer to a request without credentials: 401 with no
// error code (RFC 6750 §3.1), naming the scopes the operation needs.
func MissingToken(scopes []string) *Error {
	return &Error{Status: http.StatusUnauthorized, Scopes: scopes}
}

// InvalidToken is a 401 invalid_token failure. The cause is kept for logs.
func InvalidToken(cause error) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken, internal: cause}
}

// InvalidRequest is a 400 invalid_request failure: the request's
// credentials are malformed. The cause is kept for logs.
func InvalidRequest(cause error) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, internal: cause}
}

// InvalidDPoPProof is a 401 invalid_dpop_proof failure, challenged with the
// DPoP scheme. The cause is kept for logs.
func InvalidDPoPProof(cause error) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeInvalidDPoPProof, DPoP: true, internal: cause}
}

// InsufficientScope is a 403 insufficient_scope failure naming all the
// scopes the operation needs.
func InsufficientScope(scopes []string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeInsufficientScope, Scopes: scopes}
}

// InsufficientAuthentication is a 401 insufficient_user_authentication
// failure (RFC 9470): the user must sign in again with one of acrValues,
// and/or no longer than maxAge ago.
func InsufficientAuthentication(acrValues []string, maxAge *time.Duration) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeInsufficientUserAuthentication,
		ACRValues: acrValues, MaxAge: maxAge}
}

// AsError returns err as an *Error when it is (or wraps) one, and nil
// otherwise. A verifier returns an *Error when it rejects the credentials and
// any other error when it could not decide (the key set or introspection
// endpoint is unreachable, the Principal hook failed); answer the latter with
// a 5xx and no challenge.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
