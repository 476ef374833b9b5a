package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The token types of enterprise-managed authorization (RFC 8693 and the
// identity assertion grant).
const (
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	idTokenType        = "urn:ietf:params:oauth:token-type:id_token"
	idJAGTokenType     = "urn:ietf:params:oauth:token-type:id-jag"
)

// EnterpriseIdP is the user's enterprise identity provider in
// enterprise-managed authorization: the user signed in there once, and
// the client exchanges that sign-in (an OpenID Connect ID token) for an
// identity assertion grant (ID-JAG) naming one authorization server and
// one MCP server, which the authorization server accepts with the JWT
// bearer grant. Set OAuthConfig.Assertion to its Assertion method, with
// ClientID and ClientSecret the client's identity at the authorization
// server.
type EnterpriseIdP struct {
	// TokenEndpoint is the identity provider's token endpoint.
	TokenEndpoint string
	// ClientID (and ClientSecret, when the provider gave one) identify
	// the client at the identity provider.
	ClientID, ClientSecret string
	// IDToken returns the user's ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
	// HTTPClient makes the token exchange (a client with a 30-second
	// timeout by default). The exchange follows no redirect: it carries
	// the user's ID token and the client's secret.
	HTTPClient *http.Client
}

// Assertion exchanges the user's ID token at the identity provider
// (RFC 8693 token exchange) for an ID-JAG for the authorization server
// issuer and the MCP server resource.
func (e EnterpriseIdP) Assertion(ctx context.Context, issuer, resource string) (string, error) {
	if e.TokenEndpoint == "" || e.IDToken == nil {
		return "", fmt.Errorf("%w: EnterpriseIdP needs TokenEndpoint and IDToken", ErrAuthorization)
	}
	idToken, err := e.IDToken(ctx)
	if err != nil {
		return "", fmt.Errorf("%w: getting the ID token: %w", ErrAuthorization, err)
	}
	form := url.Values{
		"grant_type":           {tokenExchangeGrant},
		"subject_token":        {idToken},
		"subject_token_type":   {idTokenType},
		"requested_token_type": {idJAGTokenType},
		"audience":             {issuer},
		"resource":             {resource},
	}
	if e.ClientID != "" {
		form.Set("client_id", e.ClientID)
	}
	if e.ClientSecret != "" {
		form.Set("client_secret", e.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	hc := e.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := noRedirects(hc).Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: token exchange: %w", ErrAuthorization, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: the identity provider's token exchange answered %d%s: %.300s", ErrAuthorization, resp.StatusCode, redirectNote(resp), b)
	}
	var tr struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || tr.AccessToken == "" {
		return "", fmt.Errorf("%w: the token exchange response has no access_token: %.300s", ErrAuthorization, b)
	}
	if tr.IssuedTokenType != "" && tr.IssuedTokenType != idJAGTokenType {
		return "", fmt.Errorf("%w: the identity provider issued a %s, not an identity assertion grant", ErrAuthorization, tr.IssuedTokenType)
	}
	return tr.AccessToken, nil
}
