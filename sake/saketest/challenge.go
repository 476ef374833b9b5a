package saketest

import (
	"errors"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// challengeError is what a WWW-Authenticate challenge says as
// *protocol.InsufficientScopeError or *protocol.InsufficientAuthenticationError,
// or nil for other challenges.
func challengeError(header string) error {
	ch := client.ParseChallenge(header)
	switch ch.Error {
	case "insufficient_scope":
		return &protocol.InsufficientScopeError{Scopes: ch.Scopes, ResourceMetadata: ch.ResourceMetadata, Challenge: header}
	case "insufficient_user_authentication":
		return &protocol.InsufficientAuthenticationError{ACRValues: ch.ACRValues, MaxAge: ch.MaxAge,
			ResourceMetadata: ch.ResourceMetadata, Challenge: header}
	}
	return nil
}

// withChallenge completes an authorization error decoded from a JSON-RPC
// body with what only the HTTP challenge carries.
func withChallenge(err error, header string) error {
	ch := client.ParseChallenge(header)
	var se *protocol.InsufficientScopeError
	var ae *protocol.InsufficientAuthenticationError
	switch {
	case errors.As(err, &se):
		se.ResourceMetadata, se.Challenge = ch.ResourceMetadata, header
		if len(se.Scopes) == 0 {
			se.Scopes = ch.Scopes
		}
	case errors.As(err, &ae):
		ae.ResourceMetadata, ae.Challenge = ch.ResourceMetadata, header
		if len(ae.ACRValues) == 0 {
			ae.ACRValues = ch.ACRValues
		}
		if ae.MaxAge == nil {
			ae.MaxAge = ch.MaxAge
		}
	}
	return err
}
