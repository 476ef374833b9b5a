package auth

import (
	"strconv"
	"strings"
	"time"
)

// dpopAlgorithms are the signature algorithms accepted for DPoP proofs, in
// the order the algs challenge parameter lists them.
var dpopAlgorithms = []string{"ES256", "RS256", "EdDSA"}

// DPoPAlgorithms returns the signature algorithms VerifyDPoPProof accepts,
// for dpop_signing_alg_values_supported in resource metadata.
func DPoPAlgorithms() []string { return append([]string(nil), dpopAlgorithms...) }

// Challenge renders the WWW-Authenticate header value for the failure.
// scheme is "Bearer" (the default when empty) or "DPoP". The parameters
// appear in this order, each only when it has a value: error,
// error_description, scope (all required scopes, space-separated),
// acr_values, max_age (seconds), resource_metadata, and, for DPoP, algs.
//
//	Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"
func (e *Error) Challenge(scheme, resourceMetadataURL string) string {
	if s, ok := canonicalScheme(scheme); ok {
		scheme = s
	} else {
		scheme = SchemeBearer
	}
	var b strings.Builder
	b.Grow(128)
	b.WriteString(scheme)
	first := true
	param := func(name, value string) {
		if value == "" {
			return
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString(`="`)
		for i := 0; i < len(value); i++ {
			c := value[i]
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c == 0x7f:
				// Control characters cannot appear in a header.
				b.WriteByte(' ')
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	}
	param("error", e.Code)
	param("error_description", e.Description)
	param("scope", strings.Join(e.Scopes, " "))
	param("acr_values", strings.Join(e.ACRValues, " "))
	if e.MaxAge != nil {
		secs := int64(*e.MaxAge / time.Second)
		if secs < 0 {
			secs = 0
		}
		param("max_age", strconv.FormatInt(secs, 10))
	}
	param("resource_metadata", resourceMetadataURL)
	if scheme == SchemeDPoP {
		param("algs", strings.Join(dpopAlgorithms, " "))
	}
	return b.String()
}
