package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
)

// maxExchangeAnswer bounds the token endpoint answer an Exchanger reads.
const maxExchangeAnswer = 64 << 10

// Exchanger is the resource server's side of token exchange (RFC 8693):
// a tool that calls another MCP server, or another API protected by the
// same authorization server, trades the access token its caller sent for
// one for that resource, and so acts as the caller, with the chain of
// actors in the new token's act claim (auth.Actors).
//
// Its client is a pre-registered confidential client of the authorization
// server whose GrantTypes include GrantTokenExchange and whose
// ExchangeFrom names this server's resource. The caller's token comes
// from auth.TokenOf: verify requests with the authorization server's
// Verifier (which keeps tokens for such a resource) or with
// auth.JWTConfig.KeepToken.
//
// With sake/client, For gives the transport's authorizer:
//
//	c, err := client.Connect(ctx, client.HTTP(downstream, nil,
//		client.WithAuthorizer(x.For(ctx.Identity(), downstream, "notes:read"))))
type Exchanger struct {
	// TokenEndpoint is the authorization server's token endpoint
	// (Metadata().TokenEndpoint, or discovered). Required.
	TokenEndpoint string
	// ClientID and ClientSecret authenticate this resource server
	// (client_secret_basic). Required.
	ClientID, ClientSecret string
	// HTTPClient makes the token requests; default a client with a
	// 30-second timeout that follows no redirect.
	HTTPClient *http.Client
	// Now is the clock; default time.Now. For tests.
	Now func() time.Time
}

// ExchangedToken is an access token an Exchanger obtained.
type ExchangedToken struct {
	// AccessToken is the token, for the Authorization header.
	AccessToken string
	// TokenType is "Bearer".
	TokenType string
	// Scopes are the scopes it carries.
	Scopes []string
	// Expiry is when it expires, no later than the subject token.
	Expiry time.Time
}

// ExchangeError is a token exchange the authorization server refused:
// its HTTP status and OAuth error (invalid_scope for a scope the caller's
// token lacks, invalid_target for a resource it does not serve,
// invalid_request for a subject token it does not accept,
// unauthorized_client for a client not allowed to exchange).
type ExchangeError struct {
	// Status is the HTTP status of the answer.
	Status int
	// Code is its OAuth error code, "" when the body had none.
	Code string
	// Description is its error_description.
	Description string
}

func (e *ExchangeError) Error() string {
	return fmt.Sprintf("token exchange refused (%d %s): %s", e.Status, e.Code, e.Description)
}

// ErrNoCallerToken is what an Exchanger answers for an identity whose
// token was not kept (see auth.TokenOf), or for an anonymous caller.
var ErrNoCallerToken = errors.New("authserver: the caller's access token was not kept: verify with Server.Verifier of a resource a client exchanges from, or auth.JWTConfig.KeepToken")

var noRedirect = &http.Client{Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Exchange trades subjectToken, an access token sent to this resource
// server, for one for resource with scopes (none: all those
// subjectToken holds). A refusal is an *ExchangeError.
func (x *Exchanger) Exchange(ctx context.Context, subjectToken, resource string, scopes ...string) (*ExchangedToken, error) {
	if x.TokenEndpoint == "" || x.ClientID == "" {
		return nil, errors.New("authserver: Exchanger needs TokenEndpoint and ClientID")
	}
	if subjectToken == "" {
		return nil, ErrNoCallerToken
	}
	form := url.Values{"grant_type": {GrantTokenExchange}, "subject_token": {subjectToken},
		"subject_token_type": {TokenTypeAccessToken}, "requested_token_type": {TokenTypeAccessToken},
		"resource": {resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("authserver: token exchange: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(x.ClientID), url.QueryEscape(x.ClientSecret))
	hc := x.HTTPClient
	if hc == nil {
		hc = noRedirect
	} else {
		cp := *hc
		cp.CheckRedirect = noRedirect.CheckRedirect
		hc = &cp
	}
	now := time.Now
	if x.Now != nil {
		now = x.Now
	}
	sent := now()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authserver: token exchange: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxExchangeAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("authserver: token exchange: reading the answer: %w", err)
	}
	if len(body) > maxExchangeAnswer {
		return nil, errors.New("authserver: token exchange: the answer is too large")
	}
	if resp.StatusCode != http.StatusOK {
		e := &ExchangeError{Status: resp.StatusCode}
		var oe struct {
			Code        string `json:"error"`
			Description string `json:"error_description"`
		}
		if json.Unmarshal(body, &oe) == nil {
			e.Code, e.Description = oe.Code, oe.Description
		}
		return nil, e
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return nil, errors.New("authserver: token exchange: the answer has no access token")
	}
	if tr.IssuedTokenType != TokenTypeAccessToken || !strings.EqualFold(tr.TokenType, "Bearer") {
		return nil, fmt.Errorf("authserver: token exchange: a %s token of type %s, not a bearer access token", tr.TokenType, tr.IssuedTokenType)
	}
	return &ExchangedToken{AccessToken: tr.AccessToken, TokenType: auth.SchemeBearer, Scopes: strings.Fields(tr.Scope),
		Expiry: sent.Add(time.Duration(tr.ExpiresIn) * time.Second)}, nil
}

// For returns an authorizer for a sake/client HTTP transport
// (client.WithAuthorizer) that calls resource as the caller id: it
// exchanges the caller's token (auth.TokenOf) at the first request, and
// again when the token is about to expire or the server refuses it
// once. Make one per call of the tool (it holds one caller's token);
// without a kept token its requests fail with ErrNoCallerToken.
func (x *Exchanger) For(id *sake.Identity, resource string, scopes ...string) *CallerAuthorizer {
	return &CallerAuthorizer{x: x, subject: auth.TokenOf(id), resource: resource, scopes: scopes}
}

// CallerAuthorizer authorizes the requests of one downstream transport
// with tokens exchanged for one caller. It implements sake/client's
// Authorizer; build it with Exchanger.For.
type CallerAuthorizer struct {
	x        *Exchanger
	subject  string
	resource string
	scopes   []string

	mu  sync.Mutex
	tok *ExchangedToken
}

// exchangeMargin is how long before its expiry an exchanged token is
// replaced.
const exchangeMargin = 10 * time.Second

// Authorize sets the request's Authorization to an exchanged token.
func (a *CallerAuthorizer) Authorize(ctx context.Context, req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now
	if a.x.Now != nil {
		now = a.x.Now
	}
	if a.tok == nil || !now().Before(a.tok.Expiry.Add(-exchangeMargin)) {
		t, err := a.x.Exchange(ctx, a.subject, a.resource, a.scopes...)
		if err != nil {
			return err
		}
		a.tok = t
	}
	req.Header.Set("Authorization", auth.SchemeBearer+" "+a.tok.AccessToken)
	return nil
}

// Challenged drops the token after the server's first 401 so that the
// request is sent again with a new exchange; a 403 (missing scope) or a
// second refusal is final.
func (a *CallerAuthorizer) Challenged(_ context.Context, _ *http.Request, resp *http.Response, attempt int) (bool, error) {
	if resp.StatusCode != http.StatusUnauthorized || attempt > 0 {
		return false, nil
	}
	a.mu.Lock()
	a.tok = nil
	a.mu.Unlock()
	return true, nil
}
