package auth

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/sakemcp/sake-go/sake/protocol"
)

type identityKey struct{}

// ContextWithIdentity returns a context carrying id.
func ContextWithIdentity(ctx context.Context, id *protocol.Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity Middleware (or ContextWithIdentity) put
// into ctx, or nil.
func IdentityFrom(ctx context.Context) *protocol.Identity {
	id, _ := ctx.Value(identityKey{}).(*protocol.Identity)
	return id
}

// dpopRequirer is implemented by verifiers that accept only DPoP tokens, so
// that even a request without a token is challenged with the DPoP scheme.
type dpopRequirer interface{ RequiresDPoP() bool }

// Middleware verifies each request's token (Authorization: Bearer or DPoP,
// with the DPoP header) with v, requires every scope in requiredScopes, and
// passes the request on with the identity in its context (IdentityFrom).
//
// Failures are answered with the Error's status, a WWW-Authenticate
// challenge carrying resource_metadata=metadataURL and, for a missing or
// invalid token or a missing scope, scope=requiredScopes, and a JSON body
// {"error": code, "error_description": text}. The challenge uses the DPoP
// scheme when the request did, when the failure concerns proof of
// possession, or when v requires DPoP. A verifier that cannot decide (a
// non-*Error error) gets 503 without a challenge. Tokens are never logged or
// echoed.
func Middleware(v Verifier, metadataURL string, requiredScopes []string) func(http.Handler) http.Handler {
	requireDPoP := false
	if d, ok := v.(dpopRequirer); ok {
		requireDPoP = d.RequiresDPoP()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tr, err := TokenRequestFrom(r)
			var id *protocol.Identity
			switch {
			case err != nil:
			case tr.Token == "":
				err = MissingToken(nil)
			default:
				id, err = v.Verify(r.Context(), tr)
			}
			if err == nil && id == nil {
				err = MissingToken(nil)
			}
			if err == nil {
				for _, s := range requiredScopes {
					if !id.HasScope(s) {
						err = InsufficientScope(requiredScopes)
						break
					}
				}
			}
			if err != nil {
				dpop := requireDPoP || tr != nil && tr.Scheme == SchemeDPoP
				writeError(w, err, dpop, metadataURL, requiredScopes)
				return
			}
			next.ServeHTTP(w, r.WithContext(ContextWithIdentity(r.Context(), id)))
		})
	}
}

// writeError answers an authorization failure.
func writeError(w http.ResponseWriter, err error, dpop bool, metadataURL string, scopes []string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	e := AsError(err)
	if e == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(errorBody{Error: "temporarily_unavailable",
			Description: "the access token cannot be verified at the moment"})
		return
	}
	c := *e
	if len(c.Scopes) == 0 && (c.Code == "" || c.Code == CodeInvalidToken) {
		c.Scopes = scopes
	}
	scheme := SchemeBearer
	if dpop || c.DPoP {
		scheme = SchemeDPoP
	}
	status := c.Status
	if status == 0 {
		status = http.StatusUnauthorized
	}
	h.Set("WWW-Authenticate", c.Challenge(scheme, metadataURL))
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{Error: c.Code, Description: c.message()})
}

type errorBody struct {
	Error       string `json:"error,omitempty"`
	Description string `json:"error_description"`
}
