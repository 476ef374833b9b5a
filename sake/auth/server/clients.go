package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Client authentication methods (RFC 7591 §2).
const (
	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
)

// Client is an OAuth client: pre-registered, dynamically registered
// (RFC 7591) or described by a Client ID Metadata Document.
type Client struct {
	// ID is the client_id.
	ID string `json:"client_id"`
	// SecretHash is the HashSecret of a confidential client's secret;
	// empty for a public client.
	SecretHash string `json:"secret_hash,omitempty"`
	// Name is shown on the consent page.
	Name string `json:"client_name,omitempty"`
	// URI is the client's home page.
	URI string `json:"client_uri,omitempty"`
	// RedirectURIs are matched exactly, except that the port of an http
	// loopback redirect (127.0.0.1, [::1], localhost) may vary (RFC 8252
	// §7.3).
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// GrantTypes the client may use; default authorization_code and
	// refresh_token.
	GrantTypes []string `json:"grant_types,omitempty"`
	// AuthMethod is the token endpoint authentication method: none,
	// client_secret_basic or client_secret_post. Confidential clients
	// may use either secret method.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// Scopes, when not empty, bound what the client may ask for.
	Scopes []string `json:"scopes,omitempty"`
	// ExchangeFrom makes a pre-registered confidential client whose
	// GrantTypes include GrantTokenExchange a resource server that may
	// exchange its callers' tokens (RFC 8693): it lists the resources
	// (among Config.Resources) it serves, and only an access token issued
	// for one of them, that is, sent to it, can be exchanged. Required
	// with that grant type; dynamically registered and metadata document
	// clients never exchange.
	ExchangeFrom []string `json:"exchange_from,omitempty"`
	// ApplicationType is "native" or "web".
	ApplicationType string `json:"application_type,omitempty"`
	// DPoPBound requires DPoP proofs at the token endpoint: its tokens
	// are always sender-constrained.
	DPoPBound bool `json:"dpop_bound_access_tokens,omitempty"`
	// Dynamic marks a dynamically registered client.
	Dynamic bool `json:"dynamic,omitempty"`
	// FromDocument marks a client described by a metadata document.
	FromDocument bool `json:"from_document,omitempty"`
	// Created is when the client was registered.
	Created time.Time `json:"created,omitzero"`
	// RegisteredFrom is the address a dynamic client registered from
	// (an IPv4 address, or an IPv6 /64), for RegistrationLimits.
	RegisteredFrom string `json:"registered_from,omitempty"`
	// Authorized is set once a dynamic client was authorized (a code or
	// a token was issued to it); until then it may expire or be evicted.
	Authorized bool `json:"authorized,omitempty"`
}

func (c *Client) public() bool { return c.SecretHash == "" }

func (c *Client) grantTypes() []string {
	if len(c.GrantTypes) == 0 {
		return []string{"authorization_code", "refresh_token"}
	}
	return c.GrantTypes
}

func (c *Client) allows(grant string) bool { return slices.Contains(c.grantTypes(), grant) }

// displayName is the client's name for pages.
func (c *Client) displayName() string {
	if c.Name != "" {
		return c.Name
	}
	return c.ID
}

func (s *Server) checkStaticClient(c *Client) error {
	if c.ID == "" {
		return errors.New("authserver: a pre-registered client needs an ID")
	}
	if c.AuthMethod == "" {
		c.AuthMethod = AuthNone
		if c.SecretHash != "" {
			c.AuthMethod = AuthClientSecretBasic
		}
	}
	if (c.AuthMethod == AuthNone) != (c.SecretHash == "") {
		return fmt.Errorf("authserver: client %q: a confidential client needs a SecretHash (from HashSecret) and a public one none", c.ID)
	}
	if c.SecretHash != "" && !strings.HasPrefix(c.SecretHash, "pbkdf2-sha256$") {
		return fmt.Errorf("authserver: client %q: SecretHash must come from HashSecret, never the secret itself", c.ID)
	}
	for _, u := range c.RedirectURIs {
		if err := checkRedirectURI(u, c.ApplicationType); err != nil {
			return fmt.Errorf("authserver: client %q: %w", c.ID, err)
		}
	}
	return s.checkExchangeClient(c)
}

// client finds a client: pre-registered, stored, or by its metadata
// document.
func (s *Server) client(ctx context.Context, id string) (*Client, *oauthError) {
	if id == "" {
		return nil, oerr(ErrInvalidRequest, "client_id is missing")
	}
	if len(id) > 2048 {
		return nil, oerr(ErrInvalidClient, "client_id is too long")
	}
	if c, ok := s.static[id]; ok {
		return cloneClient(c), nil
	}
	if strings.HasPrefix(id, "https://") {
		c, err := s.cimd.client(ctx, id)
		if err != nil {
			s.log.Info("authserver: client metadata document refused", "client_id", id, "err", err)
			return nil, oerr(ErrInvalidClient, "the client metadata document cannot be used: "+err.Error())
		}
		return c, nil
	}
	c, err := s.store.Client(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, oerr(ErrInvalidClient, "unknown client_id")
	}
	if err != nil {
		s.log.Error("authserver: loading client", "err", err)
		return nil, oerr(ErrServerError, "the client cannot be loaded")
	}
	return c, nil
}

// clientAuthorized records that a dynamically registered client was
// authorized, once, so that it is no longer expired or evicted as
// unused. c is the client when at hand.
func (s *Server) clientAuthorized(ctx context.Context, id string, c *Client) {
	if _, static := s.static[id]; static || strings.HasPrefix(id, "https://") {
		return
	}
	if c == nil {
		var err error
		if c, err = s.store.Client(ctx, id); err != nil {
			return
		}
	}
	if !c.Dynamic || c.Authorized {
		return
	}
	if err := s.store.ClientAuthorized(ctx, id); err != nil {
		s.log.Error("authserver: recording that a client was authorized", "client_id", id, "err", err)
	}
}

// authenticateClient authenticates the caller of the token, revocation,
// introspection, PAR and device endpoints (RFC 6749 §2.3): HTTP Basic,
// client_secret in the body, or only client_id for public clients.
func (s *Server) authenticateClient(r *http.Request) (*Client, *oauthError) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, oerr(ErrInvalidClient, "malformed Basic credentials")
		}
		if r.PostForm.Has("client_secret") {
			return nil, oerr(ErrInvalidRequest, "use one client authentication method, not two")
		}
		if formID := r.PostForm.Get("client_id"); formID != "" && formID != id {
			return nil, oerr(ErrInvalidClient, "client_id differs from the Basic credentials")
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c, e := s.client(r.Context(), id)
	if e != nil {
		if e.Code == ErrInvalidRequest {
			e = oerr(ErrInvalidClient, "client authentication is required: client_id, with its secret for confidential clients")
		}
		return nil, e
	}
	if c.public() {
		if secret != "" {
			return nil, oerr(ErrInvalidClient, "this client is public: it has no secret")
		}
		return c, nil
	}
	if secret == "" || !checkSecret(c.SecretHash, secret) {
		return nil, oerr(ErrInvalidClient, "client authentication failed")
	}
	return c, nil
}

// isLoopbackHost reports whether host is a loopback IP literal or
// localhost.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkRedirectURI accepts https URLs, http loopback URLs and, for native
// applications, private-use URI schemes (RFC 8252 §7.1); never
// fragments.
func checkRedirectURI(raw, appType string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("redirect URI %q must be an absolute URL without fragment", raw)
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return fmt.Errorf("redirect URI %q has no host", raw)
		}
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return fmt.Errorf("redirect URI %q: http is only allowed for loopback hosts", raw)
		}
	case "javascript", "data", "file", "vbscript":
		return fmt.Errorf("redirect URI %q: scheme not allowed", raw)
	default:
		if appType != "native" {
			return fmt.Errorf("redirect URI %q: custom schemes are for native applications", raw)
		}
	}
	return nil
}

// matchRedirect picks the redirect URI: the one given, if registered
// (exactly, or an http loopback one with any port), or the only
// registered one when none is given.
func matchRedirect(c *Client, given string) (string, bool) {
	if given == "" {
		if len(c.RedirectURIs) == 1 {
			return c.RedirectURIs[0], true
		}
		return "", false
	}
	g, err := url.Parse(given)
	if err != nil {
		return "", false
	}
	for _, reg := range c.RedirectURIs {
		if reg == given {
			return given, true
		}
		r, err := url.Parse(reg)
		if err != nil || r.Scheme != "http" || g.Scheme != "http" || !isLoopbackHost(r.Hostname()) {
			continue
		}
		if r.Hostname() == g.Hostname() && r.EscapedPath() == g.EscapedPath() && r.RawQuery == g.RawQuery &&
			g.User == nil && g.Fragment == "" && validPort(g.Port()) {
			return given, true
		}
	}
	return "", false
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
