package client

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// OAuthConfig says how a client authorizes itself. The zero value plus a
// Browser (or ClientCredentials, or an Assertion) is a working configuration: the client
// registers itself dynamically as a public client.
type OAuthConfig struct {
	// Browser runs the user's part of the authorization code flow: it
	// opens authURL in a browser and returns the URL the authorization
	// server redirected to (with code, state and iss). Loopback provides
	// one for command-line programs.
	Browser func(ctx context.Context, authURL string) (*url.URL, error)
	// RedirectURL is the redirect URI registered for the client. Loopback
	// sets it; it is required with Browser.
	RedirectURL string
	// Device, when set, signs the person in with the device authorization
	// grant (RFC 8628) wherever the authorization server offers it: Device
	// shows the person the page and the code (and returns at once), then
	// the client polls the token endpoint until they answer there, the
	// code expires or the context ends. Where the server does not offer
	// the grant, the authorization code flow runs with Browser. For a
	// machine without a browser (a session over SSH).
	Device func(ctx context.Context, code DeviceCode) error

	// ClientID and ClientSecret are a pre-registered client. With Issuer
	// set they are used only with that authorization server; without, with
	// any (the client never carries one server's credentials to another it
	// learned of later: a registration is kept per issuer).
	ClientID, ClientSecret, Issuer string
	// ClientMetadataURL is the URL of the client's metadata document
	// (CIMD), used as its client id where the authorization server
	// supports it.
	ClientMetadataURL string
	// ClientName names the client in dynamic registration (default
	// "sake-client").
	ClientName string
	// Scopes are asked for beside those the server challenges for.
	Scopes []string
	// OfflineAccess asks for offline_access (a refresh token) where the
	// authorization server lists it.
	OfflineAccess bool

	// ClientCredentials makes the client a machine client: it takes
	// tokens with the client credentials grant, with no user and no
	// browser. It needs ClientID and ClientSecret, or PrivateKey.
	ClientCredentials bool
	// Assertion, when set, makes the client take tokens with the JWT
	// bearer grant (RFC 7523 §2.1), presenting the JWT that Assertion
	// returns for the authorization server (issuer) and the MCP server
	// (resource), with no browser: a workload's identity token from its
	// platform, or an identity assertion grant from the user's enterprise
	// identity provider (EnterpriseIdP.Assertion). A refused grant is
	// returned as an error: the client neither tries it again nor falls
	// back to another grant.
	Assertion func(ctx context.Context, issuer, resource string) (string, error)
	// PrivateKey, with KeyID, authenticates the client to the token
	// endpoint with a signed JWT (private_key_jwt) instead of a secret.
	PrivateKey crypto.Signer
	KeyID      string
	// DPoP, when set, binds tokens to this key (RFC 9449): token requests
	// and every request to the MCP endpoint carry a proof.
	DPoP crypto.Signer

	// Store keeps the tokens (MemoryTokenStore by default).
	Store TokenStore
	// HTTPClient makes the requests to the metadata, registration and
	// token endpoints (a client with a 30-second timeout by default).
	// Token requests follow no redirect, whatever its CheckRedirect says:
	// they carry the client's credentials, the code verifier or the
	// refresh token, which go to the token endpoint only.
	HTTPClient *http.Client
	// RefreshBefore refreshes a token this long before it expires
	// (default one minute).
	RefreshBefore time.Duration
	// MaxReauthorizations bounds the new authorizations one request may
	// cause (default 3): a server that keeps refusing cannot loop the
	// client.
	MaxReauthorizations int
	// Now is the clock (time.Now by default).
	Now func() time.Time
}

// OAuth returns an Authorizer that runs the OAuth flow for an HTTP
// transport (see WithAuthorizer and the package documentation).
func OAuth(cfg OAuthConfig) *OAuthAuthorizer {
	if cfg.Store == nil {
		cfg.Store = MemoryTokenStore()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.RefreshBefore <= 0 {
		cfg.RefreshBefore = time.Minute
	}
	if cfg.MaxReauthorizations <= 0 {
		cfg.MaxReauthorizations = 3
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "sake-client"
	}
	return &OAuthAuthorizer{cfg: cfg, clients: map[string]*registration{}}
}

// OAuthAuthorizer authorizes the requests of one MCP endpoint. Build it
// with OAuth.
type OAuthAuthorizer struct {
	cfg OAuthConfig

	flow    sync.Mutex // one authorization at a time
	mu      sync.Mutex
	clients map[string]*registration // by issuer
	// resource is the protected resource of the endpoint once known.
	resource string
	endpoint string
	// nonces are the latest DPoP nonces servers gave (RFC 9449 §8, §9),
	// by origin; at most maxNonces are kept.
	nonces map[string]string
}

// maxNonces bounds the DPoP nonces an authorizer keeps (one per origin it
// talks to: the MCP server and its authorization servers).
const maxNonces = 16

// maxNonceBytes bounds one DPoP nonce; a longer one is not kept.
const maxNonceBytes = 512

// nonceFor returns the DPoP nonce to put in a proof for a request to u.
func (a *OAuthAuthorizer) nonceFor(u string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nonces[originOf(u)]
}

// rememberNonce keeps the nonce a response from u carried (its DPoP-Nonce
// header), for the next proof sent there.
func (a *OAuthAuthorizer) rememberNonce(u, nonce string) {
	if nonce == "" || len(nonce) > maxNonceBytes {
		return
	}
	origin := originOf(u)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nonces == nil {
		a.nonces = map[string]string{}
	}
	if _, ok := a.nonces[origin]; !ok && len(a.nonces) >= maxNonces {
		clear(a.nonces) // the oldest cannot be told apart; servers ask again
	}
	a.nonces[origin] = nonce
}

// originOf returns scheme://host of u, lower case, or u when it does not
// parse.
func originOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return strings.ToLower(p.Scheme) + "://" + strings.ToLower(p.Host)
}

// registration is the client's identity at one authorization server.
type registration struct {
	clientID, secret string
	authMethod       string // token endpoint auth method
}

// canonical returns the canonical URI of an MCP endpoint (RFC 8707): lower
// case scheme and host, no fragment, no query.
func canonical(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("client: %q is not an absolute URL", raw)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.Fragment, u.RawFragment, u.RawQuery = "", "", ""
	return u.String(), nil
}

// covers reports whether a token for resource may go to target: same
// origin, and target's path within the resource's.
func covers(resource, target string) bool {
	r, err1 := url.Parse(resource)
	t, err2 := url.Parse(target)
	if err1 != nil || err2 != nil {
		return false
	}
	if !strings.EqualFold(r.Scheme, t.Scheme) || !strings.EqualFold(r.Host, t.Host) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	tp := t.EscapedPath()
	return rp == "" || tp == rp || strings.HasPrefix(tp, rp+"/")
}

func (a *OAuthAuthorizer) resourceFor(req *http.Request) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.resource != "" {
		return a.resource, nil
	}
	r, err := canonical(req.URL.String())
	if err != nil {
		return "", err
	}
	a.endpoint, a.resource = r, r
	return r, nil
}

// Authorize implements Authorizer: it sets the token of the endpoint's
// resource, refreshing it first when it is about to expire. It never
// sets a token on a request to another resource.
func (a *OAuthAuthorizer) Authorize(ctx context.Context, req *http.Request) error {
	resource, err := a.resourceFor(req)
	if err != nil {
		return err
	}
	if !covers(resource, req.URL.String()) {
		return nil
	}
	t, err := a.cfg.Store.Load(ctx, resource)
	if err != nil {
		return fmt.Errorf("client: loading the token: %w", err)
	}
	if t == nil && a.cfg.machine() {
		// A machine client needs no challenge to know it needs a token.
		if t, err = a.obtain(ctx, resource, nil, ""); err != nil {
			return err
		}
	}
	if t == nil {
		return nil
	}
	if t.Resource != "" && !covers(t.Resource, req.URL.String()) {
		return nil
	}
	if !t.Expiry.IsZero() && a.cfg.Now().Add(a.cfg.RefreshBefore).After(t.Expiry) {
		if nt, err := a.refresh(ctx, t); err == nil {
			t = nt
		} else if a.cfg.Now().After(t.Expiry) {
			_ = a.cfg.Store.Delete(ctx, resource)
			return nil // the server's challenge starts a new authorization
		}
	}
	return a.setToken(req, t)
}

// setToken puts the token (and a DPoP proof) on a request.
func (a *OAuthAuthorizer) setToken(req *http.Request, t *Token) error {
	if a.cfg.DPoP != nil && strings.EqualFold(t.TokenType, "DPoP") {
		proof, err := dpopProof(a.cfg.DPoP, req.Method, req.URL.String(), t.AccessToken, a.nonceFor(req.URL.String()), a.cfg.Now())
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "DPoP "+t.AccessToken)
		req.Header.Set("DPoP", proof)
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+t.AccessToken)
	return nil
}

// Challenged implements Authorizer: a 401 starts an authorization (or a
// step-up of the sign-in), a 403 insufficient_scope a new authorization
// with the union of the scopes held and asked.
func (a *OAuthAuthorizer) Challenged(ctx context.Context, req *http.Request, resp *http.Response, attempt int) (bool, error) {
	ch := ParseChallenge(resp.Header.Get("WWW-Authenticate"))
	if attempt >= a.cfg.MaxReauthorizations {
		return false, nil // the caller gets the challenge as an error
	}
	if resp.StatusCode == http.StatusForbidden && ch.Error != "insufficient_scope" {
		return false, nil
	}
	// The MCP server wants a DPoP nonce (RFC 9449 §9): the same request
	// again, with a proof carrying it; nothing to authorize.
	if resp.StatusCode == http.StatusUnauthorized && ch.Error == "use_dpop_nonce" && a.cfg.DPoP != nil {
		nonce := resp.Header.Get("DPoP-Nonce")
		if nonce == "" || nonce == a.nonceFor(req.URL.String()) {
			return false, nil // no new nonce to try: the caller gets the challenge
		}
		a.rememberNonce(req.URL.String(), nonce)
		return true, nil
	}
	resource, err := a.resourceFor(req)
	if err != nil {
		return false, err
	}
	held, _ := a.cfg.Store.Load(ctx, resource)
	// An expired or revoked token: a refresh may be all it takes.
	if resp.StatusCode == http.StatusUnauthorized && ch.Error == "invalid_token" && held != nil && held.RefreshToken != "" && attempt == 0 {
		if _, err := a.refresh(ctx, held); err == nil {
			return true, nil
		}
	}
	var extra []string
	if held != nil && (ch.Error == "insufficient_scope" || ch.Error == "insufficient_user_authentication") {
		extra = held.Scopes
	}
	if _, err := a.authorize(ctx, req.URL.String(), ch, extra); err != nil {
		return false, err
	}
	return true, nil
}

// machine reports whether the client takes tokens without a user: client
// credentials or a JWT bearer assertion.
func (c *OAuthConfig) machine() bool { return c.ClientCredentials || c.Assertion != nil }

// stepUp carries what a new sign-in must meet.
type stepUp struct {
	acr    []string
	maxAge *time.Duration
}

// authorize runs discovery and a grant, and keeps the token.
func (a *OAuthAuthorizer) authorize(ctx context.Context, endpoint string, ch Challenge, held []string) (*Token, error) {
	a.flow.Lock()
	defer a.flow.Unlock()
	d, err := a.discover(ctx, endpoint, ch)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.resource = d.resource
	a.mu.Unlock()
	scopes := chooseScopes(ch.Scopes, d.scopesSupported, held, a.cfg.Scopes)
	if a.cfg.OfflineAccess && slices.Contains(d.as.scopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	var su *stepUp
	if ch.Error == "insufficient_user_authentication" {
		su = &stepUp{acr: ch.ACRValues, maxAge: ch.MaxAge}
	}
	var t *Token
	switch {
	case a.cfg.Assertion != nil:
		t, err = a.jwtBearer(ctx, d, scopes)
	case a.cfg.ClientCredentials:
		t, err = a.clientCredentials(ctx, d, scopes)
	case a.cfg.Device != nil && d.as.deviceEndpoint != "" && su == nil:
		t, err = a.deviceFlow(ctx, d, scopes)
	default:
		t, err = a.codeFlow(ctx, d, scopes, su)
	}
	if err != nil {
		return nil, err
	}
	if err := a.cfg.Store.Save(ctx, d.resource, t); err != nil {
		return nil, fmt.Errorf("client: keeping the token: %w", err)
	}
	return t, nil
}

// obtain runs a first authorization without a challenge (client
// credentials).
func (a *OAuthAuthorizer) obtain(ctx context.Context, endpoint string, _ []string, _ string) (*Token, error) {
	return a.authorize(ctx, endpoint, Challenge{}, nil)
}

// chooseScopes picks the scopes of an authorization: those challenged,
// else all those the resource supports, plus those held and configured.
func chooseScopes(challenged, supported, held, configured []string) []string {
	var out []string
	add := func(list []string) {
		for _, s := range list {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	add(held)
	if len(challenged) > 0 {
		add(challenged)
	} else {
		add(supported)
	}
	add(configured)
	return out
}

// ErrAuthorization wraps the failures of the OAuth flow.
var ErrAuthorization = errors.New("client: authorization failed")
