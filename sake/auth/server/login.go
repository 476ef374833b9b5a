package server

import (
	"context"
	"net/http"
	"time"
)

// Login is the application's own sign-in, as the authorization server
// needs it. The application keeps its users, its login page and its
// session cookie; Sake only asks.
type Login interface {
	// Current returns who is signed in on r (from the application's
	// session cookie), or nil when nobody is. An error answers 500.
	Current(r *http.Request) (*Authentication, error)
	// LoginURL returns the URL of the application's sign-in page for
	// req: the page signs the person in (again, when req.Force is set or
	// the current sign-in does not meet req.ACRValues or req.MaxAge) and
	// then sends the browser to req.ReturnTo, a URL of this
	// authorization server. The application must only ever redirect to
	// ReturnTo values under the issuer (see Server.IsReturnURL).
	LoginURL(r *http.Request, req LoginRequest) string
	// Lookup reports on a subject each time a token is about to be
	// issued, refreshed or introspected: a subject that is not Active
	// (or an error) gets no more tokens. Claims go into ID tokens and
	// userinfo (name, email...).
	Lookup(ctx context.Context, subject string) (*Subject, error)
}

// Authentication is a sign-in: who, how (acr, amr) and when.
type Authentication struct {
	// Subject is the stable identifier of the person (never reassigned).
	Subject string
	// ACR is the authentication context class reference of the sign-in,
	// for example "urn:example:mfa".
	ACR string
	// AMR lists the authentication methods used ("pwd", "otp"...).
	AMR []string
	// AuthTime is when the person last actively authenticated.
	AuthTime time.Time
}

// LoginRequest is what the sign-in must achieve.
type LoginRequest struct {
	// ReturnTo is where to send the browser afterwards.
	ReturnTo string
	// ACRValues are the acceptable authentication context classes, in
	// order of preference; empty means any.
	ACRValues []string
	// MaxAge, when not nil, is how long ago the person may at most have
	// authenticated; older sign-ins must authenticate again.
	MaxAge *time.Duration
	// Force asks for a fresh sign-in even if one is current
	// (prompt=login).
	Force bool
	// ClientName names the application asking, for the page to show.
	ClientName string
}

// Subject is what the application says about a subject.
type Subject struct {
	// Active is false for a person who lost access: no more tokens.
	Active bool
	// Claims are OpenID Connect claims about the person (name, email,
	// email_verified, preferred_username...), put into ID tokens and
	// userinfo by the scopes that ask for them.
	Claims map[string]any
}
