package protocol

import "time"

// Identity is who is calling, as the transport established it: from a
// verified access token over HTTP, from the host over stdio, or simulated by
// saketest. A nil *Identity means an anonymous caller on an endpoint without
// authorization.
type Identity struct {
	// Principal is the host's own notion of the caller (for example its
	// user value), resolved from the token's subject or given by the host.
	Principal any
	// Subject is the token's sub: the person, or empty for a machine
	// client that acts for itself (client credentials grant).
	Subject string
	// ClientID is the OAuth client the token was issued to.
	ClientID string
	// Scopes are the token's scopes.
	Scopes []string
	// ACR is the authentication context class of the sign-in (RFC 9470).
	ACR string
	// AuthTime is when the person signed in; zero when unknown.
	AuthTime time.Time
	// Claims are the token's claims, for what the fields above do not cover.
	Claims map[string]any
	// FromToken says the identity was established from an access token:
	// components' scope and authentication requirements apply to it.
	FromToken bool
}

// HasScope reports whether the identity holds scope.
func (id *Identity) HasScope(scope string) bool {
	if id == nil {
		return false
	}
	for _, s := range id.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// Owner returns the key that owns what this caller creates (legacy
// sessions, tasks, request states): "sub:" and the subject, or for a
// machine client without a subject "client:" and the client id, each
// escaped (% and : and control bytes as %XX) so that no two identities
// share a key and a key can be embedded in another. An anonymous caller
// (nil) has the owner "", and so does an identity with neither a subject
// nor a client id: sake/auth refuses tokens like that, and a custom
// plug.Identify should not produce them.
func (id *Identity) Owner() string {
	if id == nil {
		return ""
	}
	if id.Subject != "" {
		return "sub:" + escapeOwner(id.Subject)
	}
	if id.ClientID != "" {
		return "client:" + escapeOwner(id.ClientID)
	}
	return ""
}

// escapeOwner percent-escapes %, : and control bytes; most values have
// none and are returned as they are.
func escapeOwner(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c == '%' || c == ':' || c < 0x20 || c == 0x7f {
			break
		}
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+8)
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if c := s[i]; c == '%' || c == ':' || c < 0x20 || c == 0x7f {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
