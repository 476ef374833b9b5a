package server

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// registration is a dynamic client registration request (RFC 7591 §2).
type registration struct {
	RedirectURIs    []string `json:"redirect_uris"`
	AuthMethod      string   `json:"token_endpoint_auth_method"`
	GrantTypes      []string `json:"grant_types"`
	ResponseTypes   []string `json:"response_types"`
	ClientName      string   `json:"client_name"`
	ClientURI       string   `json:"client_uri"`
	Scope           string   `json:"scope"`
	ApplicationType string   `json:"application_type"`
	DPoPBound       bool     `json:"dpop_bound_access_tokens"`
}

// register is the dynamic client registration endpoint (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, r, oerr(ErrInvalidClientMetadata, "the body must be JSON (Content-Type: application/json)"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<10+1))
	if err != nil || len(body) > 16<<10 {
		writeError(w, r, oerr(ErrInvalidClientMetadata, "the registration must be a JSON object under 16 KiB"))
		return
	}
	var reg registration
	if err := json.Unmarshal(body, &reg); err != nil {
		writeError(w, r, oerr(ErrInvalidClientMetadata, "the registration is not valid JSON of the expected shape"))
		return
	}
	c, e := s.clientFromRegistration(&reg)
	if e != nil {
		writeError(w, r, e)
		return
	}
	if c.RegisteredFrom, err = s.registrationAddress(r); err != nil {
		writeError(w, r, oerr(ErrServerError, "the registration cannot be decided now"))
		return
	}
	if s.cfg.Registration != nil {
		if err := s.registrationPolicy(r, c); errors.Is(err, errHookPanicked) {
			writeError(w, r, oerr(ErrServerError, "the registration cannot be decided now"))
			return
		} else if err != nil {
			writeError(w, r, oerr(ErrInvalidClientMetadata, err.Error()))
			return
		}
	}
	secret := ""
	if c.AuthMethod != AuthNone {
		secret = randomToken(32)
		if c.SecretHash, err = HashSecret(secret); err != nil {
			writeError(w, r, oerr(ErrServerError, "the secret cannot be created"))
			return
		}
	}
	lim := RegistrationLimits{Total: s.cfg.MaxDynamicClients, PerAddress: s.cfg.MaxRegistrationsPerAddress,
		UnusedTTL: s.cfg.UnusedClientTTL}
	if err := s.store.RegisterClient(ctx, c, lim); err != nil {
		switch {
		case errors.Is(err, ErrTooManyRegistrations):
			e := oerr(ErrTemporarilyUnavailable, "too many clients registered from this address were never authorized; authorize one of them, or try again later")
			e.status = http.StatusTooManyRequests
			writeError(w, r, e)
		case errors.Is(err, ErrStoreFull):
			writeError(w, r, oerr(ErrTemporarilyUnavailable, "no more clients can be registered now; try again later"))
		default:
			writeError(w, r, s.storeError(err))
		}
		return
	}
	out := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.Created.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                c.grantTypes(),
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": c.AuthMethod,
		"application_type":           c.ApplicationType,
	}
	if c.URI != "" {
		out["client_uri"] = c.URI
	}
	if len(c.Scopes) > 0 {
		out["scope"] = strings.Join(c.Scopes, " ")
	}
	if secret != "" {
		out["client_secret"] = secret
		out["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, out)
}

// registrationAddress is the address a registration counts against: an
// IPv4 address, or the /64 of an IPv6 one (what one host is usually
// given).
func (s *Server) registrationAddress(r *http.Request) (string, error) {
	addr := ""
	if s.cfg.RegistrationAddress != nil {
		a, err := s.remoteAddress(r)
		if err != nil {
			return "", err
		}
		addr = strings.TrimSpace(a)
	}
	if addr == "" {
		addr = r.RemoteAddr
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr, nil
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String(), nil
	}
	return ip.String(), nil
}

// clientFromRegistration validates registration metadata.
func (s *Server) clientFromRegistration(reg *registration) (*Client, *oauthError) {
	c := &Client{ID: randomToken(18), Name: reg.ClientName, URI: reg.ClientURI, Dynamic: true,
		Created: s.now(), DPoPBound: reg.DPoPBound}
	if len(reg.ClientName) > 200 || len(reg.ClientURI) > 2000 {
		return nil, oerr(ErrInvalidClientMetadata, "client_name or client_uri is too long")
	}
	c.ApplicationType = reg.ApplicationType
	if c.ApplicationType == "" {
		c.ApplicationType = "web"
	}
	if c.ApplicationType != "web" && c.ApplicationType != "native" {
		return nil, oerr(ErrInvalidClientMetadata, "application_type must be web or native")
	}
	c.AuthMethod = reg.AuthMethod
	if c.AuthMethod == "" {
		c.AuthMethod = AuthClientSecretBasic
	}
	switch c.AuthMethod {
	case AuthNone, AuthClientSecretBasic, AuthClientSecretPost:
	default:
		return nil, oerr(ErrInvalidClientMetadata, "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post")
	}
	c.GrantTypes = reg.GrantTypes
	if len(c.GrantTypes) == 0 {
		c.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range c.GrantTypes {
		switch g {
		case "authorization_code", "refresh_token", grantDevice:
		case "client_credentials":
			if !s.cfg.DynamicClientCredentials {
				return nil, oerr(ErrInvalidClientMetadata, "this server does not let dynamically registered clients use the client_credentials grant; ask its operator for a pre-registered client")
			}
			if c.AuthMethod == AuthNone {
				return nil, oerr(ErrInvalidClientMetadata, "client_credentials needs a confidential client")
			}
		default:
			return nil, oerr(ErrInvalidClientMetadata, "grant type "+g+" is not supported")
		}
	}
	for _, rt := range reg.ResponseTypes {
		if rt != "code" {
			return nil, oerr(ErrInvalidClientMetadata, "only the code response type is supported")
		}
	}
	if slices.Contains(c.GrantTypes, "authorization_code") && len(reg.RedirectURIs) == 0 {
		return nil, oerr(ErrInvalidRedirectURI, "redirect_uris are required for the authorization code grant")
	}
	if len(reg.RedirectURIs) > 20 {
		return nil, oerr(ErrInvalidRedirectURI, "at most 20 redirect_uris")
	}
	for _, u := range reg.RedirectURIs {
		if len(u) > 2000 {
			return nil, oerr(ErrInvalidRedirectURI, "a redirect URI is too long")
		}
		if err := checkRedirectURI(u, c.ApplicationType); err != nil {
			return nil, oerr(ErrInvalidRedirectURI, err.Error())
		}
	}
	c.RedirectURIs = reg.RedirectURIs
	if reg.Scope != "" {
		for _, sc := range strings.Fields(reg.Scope) {
			if _, ok := s.scopeDesc[sc]; !ok {
				return nil, oerr(ErrInvalidClientMetadata, "scope "+sc+" is unknown")
			}
			c.Scopes = append(c.Scopes, sc)
		}
	}
	return c, nil
}
