package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

const maxMetadataBody = 1 << 20

// ServerMetadata is the part of an authorization server's metadata (RFC
// 8414, OpenID Connect Discovery) a resource server uses. Raw holds the
// whole document.
type ServerMetadata struct {
	Issuer                string
	JWKSURI               string
	IntrospectionEndpoint string
	AuthorizationEndpoint string
	TokenEndpoint         string
	ScopesSupported       []string
	Raw                   map[string]any
}

// Discover reads the metadata of the authorization server identified by
// issuer, trying in order (RFC 8414 §3.1 path insertion, then OpenID Connect
// Discovery):
//
//	https://as/.well-known/oauth-authorization-server[/path]
//	https://as/.well-known/openid-configuration[/path]
//	https://as/path/.well-known/openid-configuration   (issuers with a path)
//
// The first document served with 200 whose issuer is identical to issuer
// wins; a document naming another issuer is refused (RFC 8414 §3.3). client
// is used for the requests (a client with a 30-second timeout when nil).
func Discover(ctx context.Context, issuer string, client *http.Client) (*ServerMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("auth: issuer %q is not an absolute URL without query or fragment", issuer)
	}
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	candidates := []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		candidates = append(candidates, origin+path+"/.well-known/openid-configuration")
	}
	var errs []error
	for _, c := range candidates {
		md, err := fetchMetadata(ctx, client, c)
		if err == nil && md.Issuer != issuer {
			err = fmt.Errorf("document names issuer %q", md.Issuer)
		}
		if err == nil {
			return md, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		errs = append(errs, fmt.Errorf("%s: %w", c, err))
	}
	return nil, fmt.Errorf("auth: no metadata for issuer %s: %w", issuer, errors.Join(errs...))
}

func fetchMetadata(ctx context.Context, client *http.Client, u string) (*ServerMetadata, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadataBody))
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxMetadataBody {
		return nil, errors.New("document too large")
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, errors.New("document is not a JSON object")
	}
	md := &ServerMetadata{
		Issuer:                stringClaim(raw, "issuer"),
		JWKSURI:               stringClaim(raw, "jwks_uri"),
		IntrospectionEndpoint: stringClaim(raw, "introspection_endpoint"),
		AuthorizationEndpoint: stringClaim(raw, "authorization_endpoint"),
		TokenEndpoint:         stringClaim(raw, "token_endpoint"),
		ScopesSupported:       scopeList(raw["scopes_supported"]),
		Raw:                   raw,
	}
	return md, nil
}
