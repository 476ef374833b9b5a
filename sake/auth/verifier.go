package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Verifier turns the credentials of an HTTP request into an identity.
//
// Verify returns an *Error when it rejects the credentials (answer it with
// the status and challenge the Error describes) and any other error when it
// could not decide, for example because the key set or the introspection
// endpoint is unreachable (answer 503, without a challenge). A request
// without a token is the caller's to answer with MissingToken; verifiers
// return MissingToken for it too.
type Verifier interface {
	Verify(ctx context.Context, r *TokenRequest) (*protocol.Identity, error)
}

// Authorization schemes, as ParseAuthorization returns them.
const (
	SchemeBearer = "Bearer"
	SchemeDPoP   = "DPoP"
)

// TokenRequest is what a verifier sees: the token, its scheme ("Bearer" or
// "DPoP"), the DPoP proof header if any, and the request's method and URL
// (for the proof's htm and htu claims). URL must be absolute; its query and
// fragment are ignored.
type TokenRequest struct {
	Token     string
	Scheme    string
	DPoPProof string
	Method    string
	URL       *url.URL
}

// TokenRequestFrom reads the credentials of r: the Authorization header, the
// DPoP header, the method, and the absolute request URL (scheme from TLS,
// host from the Host header). A request without an Authorization header
// gives a TokenRequest with an empty Token. A malformed header gives an
// *Error (see ParseAuthorization), as do several DPoP headers under the DPoP
// scheme (RFC 9449 §4.3).
//
// Behind a proxy that terminates TLS or rewrites the host, the URL seen here
// is not the one the client signed in its DPoP proof: set TokenRequest.URL
// to the endpoint's public URL before verifying.
func TokenRequestFrom(r *http.Request) (*TokenRequest, error) {
	scheme, token, err := ParseAuthorization(r.Header)
	if err != nil {
		return nil, err
	}
	tr := &TokenRequest{Token: token, Scheme: scheme, Method: r.Method, URL: requestURL(r)}
	proofs := r.Header.Values("DPoP")
	if scheme == SchemeDPoP && len(proofs) > 1 {
		return nil, InvalidDPoPProof(errors.New("more than one DPoP header"))
	}
	if len(proofs) == 1 {
		tr.DPoPProof = proofs[0]
	}
	return tr, nil
}

// requestURL reconstructs the absolute URL of a server-side request, without
// query, fragment or user info.
func requestURL(r *http.Request) *url.URL {
	u := &url.URL{Scheme: r.URL.Scheme, Host: r.URL.Host, Path: r.URL.Path, RawPath: r.URL.RawPath}
	if u.Scheme == "" {
		u.Scheme = "http"
		if r.TLS != nil {
			u.Scheme = "https"
		}
	}
	if u.Host == "" {
		u.Host = r.Host
	}
	return u
}

// ParseAuthorization extracts the scheme ("Bearer" or "DPoP", matched
// case-insensitively and returned in this canonical spelling) and the token
// from the Authorization header. No header gives empty strings and no error.
// An unsupported scheme gives MissingToken (the request carries no
// credentials this server understands); several Authorization headers, a
// missing token or one that is not a b64token (RFC 6750 §2.1) give a 400
// invalid_request *Error.
func ParseAuthorization(h http.Header) (scheme, token string, err error) {
	values := h.Values("Authorization")
	switch len(values) {
	case 0:
		return "", "", nil
	case 1:
	default:
		return "", "", InvalidRequest(errors.New("more than one Authorization header"))
	}
	v := strings.TrimSpace(values[0])
	if v == "" {
		return "", "", nil
	}
	name, rest, _ := strings.Cut(v, " ")
	scheme, ok := canonicalScheme(name)
	if !ok {
		return "", "", MissingToken(nil)
	}
	token = strings.TrimLeft(rest, " ")
	if token == "" {
		return "", "", InvalidRequest(errors.New("authorization header has no token"))
	}
	if !isB64Token(token) {
		return "", "", InvalidRequest(errors.New("token is not a b64token"))
	}
	return scheme, token, nil
}

// canonicalScheme maps an authorization scheme, matched case-insensitively,
// to its canonical spelling.
func canonicalScheme(s string) (string, bool) {
	switch {
	case strings.EqualFold(s, SchemeBearer):
		return SchemeBearer, true
	case strings.EqualFold(s, SchemeDPoP):
		return SchemeDPoP, true
	}
	return "", false
}

// isB64Token reports whether s matches
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' {
			continue
		}
		break
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}
