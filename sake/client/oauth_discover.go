package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/sakemcp/sake-go/sake/auth"
)

// discovery is what the client learned about a protected resource and its
// authorization server.
type discovery struct {
	resource        string
	scopesSupported []string
	as              *asMeta
}

// asMeta is the authorization server metadata the client uses.
type asMeta struct {
	issuer                string
	authorizationEndpoint string
	tokenEndpoint         string
	registrationEndpoint  string
	deviceEndpoint        string // device_authorization_endpoint; empty when not offered
	scopesSupported       []string
	tokenAuthMethods      []string
	challengeMethods      []string
	grantTypes            []string // grant_types_supported; empty when not published
	cimd                  bool
	issSupported          bool
	// documented is false when the server published no metadata and the
	// client uses the default endpoints of 2025-03-26.
	documented bool
}

const maxMetadataBytes = 1 << 20

// getJSON fetches a JSON document.
func (a *OAuthAuthorizer) getJSON(ctx context.Context, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.cfg.HTTPClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("%s: status %d", u, resp.StatusCode)
	}
	if len(body) > maxMetadataBytes {
		return resp.StatusCode, fmt.Errorf("%s: the document exceeds %d bytes", u, maxMetadataBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("%s: %w", u, err)
	}
	return resp.StatusCode, nil
}

// prmCandidates lists where the protected resource metadata may be: the
// challenge's resource_metadata, else the path-inserted then the root
// well-known URL (RFC 9728).
func prmCandidates(endpoint string, ch Challenge) ([]string, error) {
	if ch.ResourceMetadata != "" {
		return []string{ch.ResourceMetadata}, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	var out []string
	if path != "" {
		out = append(out, origin+"/.well-known/oauth-protected-resource"+path)
	}
	return append(out, origin+"/.well-known/oauth-protected-resource"), nil
}

// discover finds the protected resource's metadata and its authorization
// server's.
func (a *OAuthAuthorizer) discover(ctx context.Context, endpoint string, ch Challenge) (*discovery, error) {
	cands, err := prmCandidates(endpoint, ch)
	if err != nil {
		return nil, err
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	found := false
	for _, c := range cands {
		if _, err := a.getJSON(ctx, c, &prm); err == nil {
			found = true
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	d := &discovery{}
	var issuer string
	if found {
		if prm.Resource == "" {
			return nil, fmt.Errorf("%w: the protected resource metadata names no resource", ErrAuthorization)
		}
		res, err := canonical(prm.Resource)
		if err != nil || !covers(res, endpoint) {
			return nil, fmt.Errorf("%w: the protected resource metadata is for %q, not for %s", ErrAuthorization, prm.Resource, endpoint)
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("%w: the protected resource metadata names no authorization server", ErrAuthorization)
		}
		d.resource = prm.Resource
		d.scopesSupported = prm.ScopesSupported
		issuer = prm.AuthorizationServers[0]
	} else {
		// 2025-03-26: no resource metadata; the server's origin is the
		// authorization server.
		u, _ := url.Parse(endpoint)
		issuer = u.Scheme + "://" + u.Host
		d.resource = endpoint
	}
	md, err := auth.Discover(ctx, issuer, a.cfg.HTTPClient)
	if err != nil {
		if found || ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrAuthorization, err)
		}
		d.as = &asMeta{issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
			registrationEndpoint: issuer + "/register"}
		return d, nil
	}
	d.as = &asMeta{issuer: md.Issuer, authorizationEndpoint: md.AuthorizationEndpoint, tokenEndpoint: md.TokenEndpoint,
		registrationEndpoint: str(md.Raw["registration_endpoint"]), deviceEndpoint: str(md.Raw["device_authorization_endpoint"]),
		scopesSupported:  md.ScopesSupported,
		tokenAuthMethods: strs(md.Raw["token_endpoint_auth_methods_supported"]),
		challengeMethods: strs(md.Raw["code_challenge_methods_supported"]),
		grantTypes:       strs(md.Raw["grant_types_supported"]),
		cimd:             md.Raw["client_id_metadata_document_supported"] == true,
		issSupported:     md.Raw["authorization_response_iss_parameter_supported"] == true, documented: true}
	if d.as.tokenEndpoint == "" {
		return nil, fmt.Errorf("%w: the authorization server %s has no token endpoint", ErrAuthorization, issuer)
	}
	return d, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// errNoClient says the client has no way to identify itself.
var errNoClient = errors.New("the authorization server offers neither client metadata documents nor dynamic registration, and no client id is configured for it")
