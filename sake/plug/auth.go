package plug

import (
	"errors"
	"net/http"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Authorization makes the endpoint an OAuth 2.1 resource server: every
// request must carry an access token that v accepts (Authorization: Bearer,
// or DPoP with its proof). A request without one gets 401 with a
// WWW-Authenticate challenge naming resourceMetadataURL (RFC 9728) and
// scopes; a call that a component refuses for its scopes gets 403
// error="insufficient_scope" with every scope it needs, and one that needs
// a stronger or more recent sign-in gets 401
// error="insufficient_user_authentication" with acr_values and max_age
// (RFC 9470). When v cannot decide (its key set or introspection endpoint
// is unreachable) the answer is 503, so clients are not sent to sign in
// again during an outage. Tokens are never logged.
func Authorization(v auth.Verifier, resourceMetadataURL string, scopes ...string) Option {
	return func(c *config) {
		c.metadataURL = resourceMetadataURL
		c.identify = func(r *http.Request) (*sake.Identity, error) {
			tr, err := auth.TokenRequestFrom(r)
			if err != nil {
				ae := auth.AsError(err)
				if ae == nil {
					ae = auth.InvalidRequest(err)
				}
				return nil, &challenge{err: ae, metadataURL: resourceMetadataURL}
			}
			if tr.Token == "" {
				return nil, &challenge{err: auth.MissingToken(scopes), metadataURL: resourceMetadataURL}
			}
			id, err := v.Verify(r.Context(), tr)
			if err != nil {
				if ae := auth.AsError(err); ae != nil {
					if ae.Status == http.StatusUnauthorized && len(ae.Scopes) == 0 {
						ae.Scopes = scopes
					}
					return nil, &challenge{err: ae, metadataURL: resourceMetadataURL, scheme: tr.Scheme}
				}
				return nil, &unavailable{err: err}
			}
			id.FromToken = true
			return id, nil
		}
	}
}

// challenge is a refused credential: its status and WWW-Authenticate.
type challenge struct {
	err         *auth.Error
	metadataURL string
	scheme      string
}

func (c *challenge) Error() string   { return c.err.Error() }
func (c *challenge) HTTPStatus() int { return c.err.Status }
func (c *challenge) WWWAuthenticate() string {
	scheme := c.scheme
	if c.err.DPoP {
		scheme = auth.SchemeDPoP
	}
	return c.err.Challenge(scheme, c.metadataURL)
}

// unavailable is a verifier that could not decide. Its cause (an
// *auth.UnavailableError says when to retry) is never shown to the client.
type unavailable struct{ err error }

func (u *unavailable) Error() string {
	return "the token cannot be checked right now; try again after the Retry-After delay"
}
func (u *unavailable) HTTPStatus() int { return http.StatusServiceUnavailable }
func (u *unavailable) RetryAfter() time.Duration {
	var ue *auth.UnavailableError
	if errors.As(u.err, &ue) {
		return ue.RetryAfter()
	}
	return DefaultRetryAfter
}

// authFailureChallenge renders the challenge of a component's refusal.
func (h *Handler) authFailureChallenge(r *http.Request, f error) (int, string) {
	var e *auth.Error
	if se, ok := errors.AsType[*protocol.InsufficientScopeError](f); ok {
		e = auth.InsufficientScope(se.Scopes)
	} else {
		ae, _ := errors.AsType[*protocol.InsufficientAuthenticationError](f)
		if ae == nil {
			ae = &protocol.InsufficientAuthenticationError{}
		}
		e = auth.InsufficientAuthentication(ae.ACRValues, ae.MaxAge)
	}
	scheme := auth.SchemeBearer
	if s, _, err := auth.ParseAuthorization(r.Header); err == nil && s != "" {
		scheme = s
	}
	return e.Status, e.Challenge(scheme, h.cfg.metadataURL)
}
