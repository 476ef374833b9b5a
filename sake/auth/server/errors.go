package server

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// The OAuth error codes the endpoints answer (RFC 6749 §4.1.2.1 and §5.2,
// RFC 7591 §3.2.2, RFC 8628 §3.5, RFC 8707 §2, RFC 9126 §2.3, OpenID
// Connect Core §3.1.2.6).
const (
	ErrInvalidRequest          = "invalid_request"
	ErrInvalidClient           = "invalid_client"
	ErrInvalidGrant            = "invalid_grant"
	ErrUnauthorizedClient      = "unauthorized_client"
	ErrUnsupportedGrantType    = "unsupported_grant_type"
	ErrUnsupportedResponseType = "unsupported_response_type"
	ErrInvalidScope            = "invalid_scope"
	ErrAccessDenied            = "access_denied"
	ErrServerError             = "server_error"
	ErrTemporarilyUnavailable  = "temporarily_unavailable"
	ErrInvalidTarget           = "invalid_target"
	ErrInvalidRequestURI       = "invalid_request_uri"
	ErrInvalidRedirectURI      = "invalid_redirect_uri"
	ErrInvalidClientMetadata   = "invalid_client_metadata"
	ErrAuthorizationPending    = "authorization_pending"
	ErrSlowDown                = "slow_down"
	ErrExpiredToken            = "expired_token"
	ErrLoginRequired           = "login_required"
	ErrConsentRequired         = "consent_required"
	ErrInvalidDPoPProof        = "invalid_dpop_proof"
	ErrInvalidToken            = "invalid_token"
	ErrUnsupportedTokenType    = "unsupported_token_type"
)

// oauthError is an error answer: code, description, HTTP status.
type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	status      int
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

// oerr makes every oauthError: its description conforms (see
// describe), whatever it quotes.
func oerr(code, desc string) *oauthError {
	st := http.StatusBadRequest
	switch code {
	case ErrInvalidClient, ErrInvalidToken:
		st = http.StatusUnauthorized
	case ErrServerError:
		st = http.StatusInternalServerError
	case ErrTemporarilyUnavailable:
		st = http.StatusServiceUnavailable
	}
	return &oauthError{Code: code, Description: describe(desc), status: st}
}

// maxDescription bounds an error_description, which may quote what the
// request sent.
const maxDescription = 300

// describe makes desc a valid error_description (RFC 6749 §5.2:
// %x20-21 / %x23-5B / %x5D-7E): a double quote becomes a single one, any
// other character outside the set (backslash, control, non-ASCII) a
// question mark, and past maxDescription bytes it is cut with "...".
func describe(desc string) string {
	ok := len(desc) <= maxDescription
	for i := 0; ok && i < len(desc); i++ {
		ok = allowedInDescription(desc[i])
	}
	if ok {
		return desc
	}
	var b strings.Builder
	for _, r := range desc {
		if b.Len() >= maxDescription-3 {
			b.WriteString("...")
			break
		}
		switch {
		case r == '"':
			b.WriteByte('\'')
		case r < 0x80 && allowedInDescription(byte(r)):
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	return strings.TrimRight(b.String(), " ")
}

func allowedInDescription(c byte) bool {
	return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'
}

// writeJSON answers v with status, never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers e as a JSON error (token, registration, revocation,
// introspection, PAR, device endpoints).
func writeError(w http.ResponseWriter, r *http.Request, e *oauthError) {
	if e.status == http.StatusUnauthorized {
		if _, _, ok := r.BasicAuth(); ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		}
	}
	writeJSON(w, e.status, e)
}

// redirectError sends the browser back to a verified redirect URI with
// the error, the state and iss (RFC 9207).
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, g *Grant, e *oauthError) {
	v := url.Values{"error": {e.Code}}
	if e.Description != "" {
		v.Set("error_description", e.Description)
	}
	s.redirectBack(w, r, g, v)
}

// redirectBack appends v, state and iss to the grant's redirect URI and
// redirects there. Only called with a redirect URI matched against the
// client's registration.
func (s *Server) redirectBack(w http.ResponseWriter, r *http.Request, g *Grant, v url.Values) {
	u, err := url.Parse(g.RedirectURI)
	if err != nil {
		s.errorPage(w, r, oerr(ErrServerError, "the redirect URI cannot be parsed"))
		return
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if g.State != "" {
		q.Set("state", g.State)
	}
	q.Set("iss", s.issuer)
	u.RawQuery = q.Encode()
	u.Fragment = ""
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

var errorTemplate = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in problem</title>` + pageStyle + `</head>
<body><main><h1>This sign-in cannot continue</h1>
<p role="alert">{{.Description}}</p>
<p>Error code: <code>{{.Code}}</code>. Go back to the application and start again.</p>
</main></body></html>`))

// errorPage answers an authorization error that must not be redirected
// (unknown client, unregistered redirect URI, unusable request_uri): a
// page for the person, never a redirect to an unverified URI.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, e *oauthError) {
	pageHeaders(w)
	w.WriteHeader(e.status)
	_ = errorTemplate.Execute(w, e)
}

// pageHeaders sets the headers of every HTML page: no caching, no
// framing (clickjacking), no inline script, no referrer leaking codes.
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

const pageStyle = `<style>
body{font-family:system-ui,sans-serif;background:#f6f6f4;color:#1d1d1b;margin:0}
main{max-width:32rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin-top:0}
ul{padding-left:1.2rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.3rem;border:1px solid #555;background:#fff;cursor:pointer}
button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
button:focus,input:focus{outline:3px solid #f59e0b;outline-offset:2px}
.warn{background:#fff7ed;border-left:4px solid #ea580c;padding:.5rem .8rem}
label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input[type=text]{font:inherit;padding:.5rem;width:100%;box-sizing:border-box}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
</style>`
