package client

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
)

// PendingSignIn is an authorization code flow begun by BeginSignIn and
// not yet completed: the person is to visit URL, and the authorization
// server will send their browser back to the redirect URI with State.
// Its unexported parts (the PKCE verifier, the client's registration)
// never leave the program: keep it server-side, bound to whoever began
// it, until CompleteSignIn.
type PendingSignIn struct {
	// URL is the authorization request to send the person to.
	URL string
	// State is the state parameter of the request: the callback carrying
	// it completes this sign-in and no other.
	State string
	// Resource is the protected resource the token will be for, Issuer
	// the authorization server that will issue it.
	Resource, Issuer string

	verifier string
	as       *asMeta
	cl       *registration
	scopes   []string
	redirect string
}

// BeginSignIn starts the authorization code flow with PKCE for the MCP
// server at endpoint without waiting for anyone: it discovers the
// server's authorization server (from the server's challenge to a request
// without a token and its protected-resource metadata), registers the
// client there when it has no client id, and returns the request to send
// the person to. Where the browser comes back (RedirectURL), hand the
// callback's URL to CompleteSignIn with the PendingSignIn. It is the
// Browser callback's flow split in two, for a server that signs its own
// users in to another (a gateway). With Issuer set, an MCP server whose
// authorization server is another is refused. BeginSignIn needs
// RedirectURL.
func (a *OAuthAuthorizer) BeginSignIn(ctx context.Context, endpoint string) (*PendingSignIn, error) {
	if a.cfg.RedirectURL == "" {
		return nil, fmt.Errorf("%w: BeginSignIn needs OAuthConfig.RedirectURL, the URL the browser comes back to", ErrAuthorization)
	}
	if _, err := canonical(endpoint); err != nil {
		return nil, err
	}
	ch := a.probe(ctx, endpoint)
	d, err := a.discover(ctx, endpoint, ch)
	if err != nil {
		return nil, err
	}
	if a.cfg.Issuer != "" && d.as.issuer != a.cfg.Issuer {
		return nil, fmt.Errorf("%w: the server's authorization server is %q, not the configured issuer %q", ErrAuthorization, d.as.issuer, a.cfg.Issuer)
	}
	a.mu.Lock()
	a.resource = d.resource
	a.mu.Unlock()
	scopes := chooseScopes(ch.Scopes, d.scopesSupported, nil, a.cfg.Scopes)
	if a.cfg.OfflineAccess && slices.Contains(d.as.scopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return a.beginCode(ctx, d, scopes, nil)
}

// probe asks endpoint without a token for its challenge (which may name
// where its protected-resource metadata is); an empty Challenge when it
// gives none.
func (a *OAuthAuthorizer) probe(ctx context.Context, endpoint string) Challenge {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return Challenge{}
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := noRedirects(a.cfg.HTTPClient).Do(req)
	if err != nil {
		return Challenge{}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return Challenge{}
	}
	return ParseChallenge(resp.Header.Get("WWW-Authenticate"))
}

// CompleteSignIn completes p with the URL the authorization server sent
// the browser back to (its code, state and iss): the state must be p's,
// the issuer p's, and the code is traded for a token with p's PKCE
// verifier. The token is kept in the configuration's Store under
// p.Resource and returned.
func (a *OAuthAuthorizer) CompleteSignIn(ctx context.Context, p *PendingSignIn, callback *url.URL) (*Token, error) {
	if p == nil || p.as == nil || callback == nil {
		return nil, fmt.Errorf("%w: CompleteSignIn needs the PendingSignIn BeginSignIn returned and the callback URL", ErrAuthorization)
	}
	t, err := a.completeCode(ctx, p, callback)
	if err != nil {
		return nil, err
	}
	if err := a.cfg.Store.Save(ctx, p.Resource, t); err != nil {
		return nil, fmt.Errorf("client: keeping the token: %w", err)
	}
	return t, nil
}

// WithStore returns an authorizer with a's configuration and the client
// registrations a holds, keeping tokens in store: one authorizer per user
// of a server that signs its users in (each user's own store), sharing
// one registration at each authorization server.
func (a *OAuthAuthorizer) WithStore(store TokenStore) *OAuthAuthorizer {
	cfg := a.cfg
	cfg.Store = store
	b := OAuth(cfg)
	a.mu.Lock()
	maps.Copy(b.clients, a.clients)
	b.resource, b.endpoint = a.resource, a.endpoint
	a.mu.Unlock()
	return b
}
