package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
)

// revocation is how the provider is told a token is no longer wanted:
// RFC 7009 at an OpenID provider's revocation_endpoint, or GitHub's API
// deleting an application's token.
type revocation struct {
	url  string // "" when the provider cannot be told
	post bool   // client credentials in the body (client_secret_post), not Basic
	sem  chan struct{}
}

// newRevocation sets up revocations at endpoint, advertising methods
// (revocation_endpoint_auth_methods_supported).
func (l *Login) newRevocation(endpoint string, methods []string) {
	if endpoint == "" {
		return
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		l.log.Warn("upstream: the provider's revocation_endpoint is not a URL; its tokens are not revoked there", "provider", l.provider.Name)
		return
	}
	l.revoke = revocation{url: endpoint, sem: make(chan struct{}, l.cfg.MaxRevocations),
		post: slices.Contains(methods, "client_secret_post") && !slices.Contains(methods, "client_secret_basic")}
}

// Revoking implements server.GrantRevoker: when the authorization family
// is revoked, the upstream token kept for it is revoked at the provider
// too (its refresh token, or its access token when it has none), in the
// background.
func (l *Login) Revoking(ctx context.Context, family string) func() {
	if l.revoke.url == "" {
		return nil
	}
	rec, _, err := l.openRecord(ctx, family)
	if err != nil {
		return nil // nothing kept for it, or not readable
	}
	tok := rec.Token
	return func() { l.revokeUpstream(tok) }
}

// revokeUpstream revokes tok at the provider in the background, within
// Config.RevocationTimeout, at most Config.MaxRevocations at a time:
// beyond, it is not revoked there (and logged). Failures are logged,
// never the token.
func (l *Login) revokeUpstream(tok *oauth2.Token) {
	if l.revoke.url == "" || tok == nil || tok.AccessToken == "" && tok.RefreshToken == "" {
		return
	}
	select {
	case l.revoke.sem <- struct{}{}:
	default:
		l.log.Warn("upstream: too many revocations under way at the provider; this token is left to expire there", "provider", l.provider.Name)
		return
	}
	l.revoking.Add(1)
	go func() {
		defer l.revoking.Done()
		defer func() { <-l.revoke.sem }()
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.RevocationTimeout)
		defer cancel()
		if err := l.sendRevocation(ctx, tok); err != nil {
			l.log.Warn("upstream: revoking a token at the provider", "provider", l.provider.Name, "err", err)
		}
	}()
}

// revocationError is a provider's refusal, by status and OAuth error
// code (never the body otherwise).
type revocationError struct {
	status int
	code   string
}

func (e *revocationError) Error() string {
	s := "the provider answered " + strconv.Itoa(e.status)
	if e.code != "" {
		s += " " + e.code
	}
	return s
}

// sendRevocation makes the provider's revocation request.
func (l *Login) sendRevocation(ctx context.Context, tok *oauth2.Token) error {
	var req *http.Request
	var err error
	if l.provider.kind == kindGitHub {
		// DELETE /applications/{client_id}/token: the access token, with
		// the application's credentials.
		body, _ := json.Marshal(map[string]string{"access_token": tok.AccessToken})
		req, err = http.NewRequestWithContext(ctx, http.MethodDelete, l.revoke.url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/vnd.github+json")
		req.Header.Set("Content-Type", "application/json")
		req.SetBasicAuth(l.cfg.ClientID, l.cfg.ClientSecret)
	} else {
		f := url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}}
		if tok.RefreshToken == "" {
			f = url.Values{"token": {tok.AccessToken}, "token_type_hint": {"access_token"}}
		}
		basic := l.cfg.ClientSecret != "" && !l.revoke.post
		if !basic {
			f.Set("client_id", l.cfg.ClientID)
			if l.cfg.ClientSecret != "" {
				f.Set("client_secret", l.cfg.ClientSecret)
			}
		}
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, l.revoke.url, strings.NewReader(f.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if basic {
			// RFC 6749 §2.3.1: both form-encoded first.
			req.SetBasicAuth(url.QueryEscape(l.cfg.ClientID), url.QueryEscape(l.cfg.ClientSecret))
		}
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	var e struct {
		Code string `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	code := e.Code
	if len(code) > 64 || strings.ContainsFunc(code, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		code = ""
	}
	return &revocationError{status: resp.StatusCode, code: code}
}

// waitRevocations waits for the revocations under way (for tests).
func (l *Login) waitRevocations() { l.revoking.Wait() }
