package sake

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Requirement is what a component asks of its caller's access token: OAuth
// scopes, and an authentication level (RFC 9470: one of the accepted
// authentication context classes, and a sign-in no older than MaxAge).
//
// Requirements fail closed. Over HTTP, and over any transport other than
// stdio and memory, a caller must prove them: an anonymous caller is
// refused, and any identity (from a token or from a custom plug.Identify)
// is checked against its Scopes, ACR and AuthTime. Over stdio and in memory
// the host vouches for its caller: there requirements apply only to
// identities that come from an access token (Identity.FromToken), and a
// host-given principal or an anonymous caller is not gated.
type Requirement struct {
	Scopes    []string
	ACRValues []string
	MaxAge    time.Duration
}

func (r Requirement) empty() bool {
	return len(r.Scopes) == 0 && len(r.ACRValues) == 0 && r.MaxAge == 0
}

// Transports whose caller the host vouches for (Inbound.Transport).
const (
	transportStdio  = "stdio"
	transportMemory = "memory"
)

// hostTrusted reports whether the message came over a transport where the
// host vouches for the caller, so that only token identities are gated.
func hostTrusted(in *Inbound) bool {
	return in != nil && (in.Transport == transportStdio || in.Transport == transportMemory)
}

// check returns nil when id satisfies the requirement, else an
// *protocol.InsufficientScopeError or *protocol.InsufficientAuthenticationError. With trusted
// (stdio, memory), only identities from a token are checked; otherwise
// every caller is, and an anonymous one fails.
func (r Requirement) check(id *Identity, now func() time.Time, trusted bool) error {
	if r.empty() || trusted && (id == nil || !id.FromToken) {
		return nil
	}
	for _, s := range r.Scopes {
		if !id.HasScope(s) { // false for a nil (anonymous) id
			return &protocol.InsufficientScopeError{Scopes: append([]string(nil), r.Scopes...)}
		}
	}
	weak := len(r.ACRValues) > 0 && !slices.Contains(r.ACRValues, id.ACR)
	stale := r.MaxAge > 0 && (id.AuthTime.IsZero() || now().Sub(id.AuthTime) > r.MaxAge)
	if weak || stale {
		e := &protocol.InsufficientAuthenticationError{ACRValues: append([]string(nil), r.ACRValues...)}
		if r.MaxAge > 0 {
			m := r.MaxAge
			e.MaxAge = &m
		}
		return e
	}
	return nil
}

// authError turns an authorization error into its JSON-RPC form, and
// returns the *protocol.InsufficientScopeError or *protocol.InsufficientAuthenticationError
// a transport answers with its own status and challenge (Reply.Auth).
func authError(err error) (*Error, error, bool) {
	if e, ok := errors.AsType[*protocol.InsufficientScopeError](err); ok {
		return &Error{Code: CodeInsufficientScope, Message: e.Error(),
				Data: map[string]any{"error": "insufficient_scope", "scope": strings.Join(e.Scopes, " "), "scopes": e.Scopes}},
			e, true
	}
	if e, ok := errors.AsType[*protocol.InsufficientAuthenticationError](err); ok {
		data := map[string]any{"error": "insufficient_user_authentication"}
		if len(e.ACRValues) > 0 {
			data["acr_values"] = strings.Join(e.ACRValues, " ")
		}
		if e.MaxAge != nil {
			data["max_age"] = int64(e.MaxAge.Seconds())
		}
		return &Error{Code: CodeInsufficientAuthentication, Message: e.Error(), Data: data},
			e, true
	}
	return nil, nil, false
}
