package upstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// identify tells who signed in from the token response.
func (l *Login) identify(ctx context.Context, tok *oauth2.Token, pl *pendingLogin) (*Person, error) {
	if l.provider.kind == kindGitHub {
		p, err := l.github(ctx, tok)
		if err != nil {
			return nil, err
		}
		p.AuthTime = l.now()
		return p, nil
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, errors.New("the token response has no id_token")
	}
	p, err := l.verifyIDToken(ctx, raw)
	if err != nil {
		return nil, err
	}
	if subtleEqual(p.Claims["nonce"], pl.Nonce) != nil {
		return nil, errors.New("the ID token's nonce is not this sign-in's")
	}
	switch {
	case !p.AuthTime.IsZero():
	case pl.MaxAge != nil:
		return nil, errors.New("max_age was asked for and the ID token has no auth_time")
	default:
		p.AuthTime = l.now()
	}
	if p.Email == "" && l.userinfo != "" {
		l.addUserinfo(ctx, tok, p)
	}
	return p, nil
}

func subtleEqual(got any, want string) error {
	s, _ := got.(string)
	if s == "" || s != want {
		return errors.New("mismatch")
	}
	return nil
}

// verifyIDToken checks an ID token (signature with an algorithm of the
// provider's, issuer, audience, expiry) and reads the person from it.
func (l *Login) verifyIDToken(ctx context.Context, raw string) (*Person, error) {
	idt, err := l.verifier.Verify(ctx, raw)
	if err != nil {
		return nil, err
	}
	var c map[string]any
	if err := idt.Claims(&c); err != nil {
		return nil, err
	}
	if len(idt.Audience) > 1 {
		if azp, _ := c["azp"].(string); azp != l.cfg.ClientID {
			return nil, errors.New("the ID token has several audiences and is not authorized for this client (azp)")
		}
	}
	p := &Person{Issuer: idt.Issuer, ID: idt.Subject, Claims: c}
	if l.provider.kind == kindEntra {
		tid, _ := c["tid"].(string)
		oid, _ := c["oid"].(string)
		if tid == "" || oid == "" {
			return nil, errors.New("the Entra ID token has no tid or oid")
		}
		if !l.entraIssuer(idt.Issuer, tid) {
			return nil, fmt.Errorf("the ID token's issuer %q is not its tenant's", idt.Issuer)
		}
		p.Tenant, p.ID = tid, oid
	}
	p.Subject = p.Issuer + "#" + p.ID
	fill(p, c)
	if acr, ok := c["acr"].(string); ok {
		p.ACR = acr
	}
	if amr, ok := c["amr"].([]any); ok {
		for _, m := range amr {
			if s, ok := m.(string); ok {
				p.AMR = append(p.AMR, s)
			}
		}
	}
	if at, ok := c["auth_time"].(float64); ok && at > 0 {
		p.AuthTime = time.Unix(int64(at), 0)
	}
	return p, nil
}

// fill reads the profile claims into p.
func fill(p *Person, c map[string]any) {
	str := func(k string) string { s, _ := c[k].(string); return s }
	if p.Email == "" {
		p.Email = str("email")
		switch v := c["email_verified"].(type) {
		case bool:
			p.EmailVerified = v
		case string:
			p.EmailVerified = v == "true"
		}
	}
	if p.Name == "" {
		p.Name = str("name")
	}
	if p.Username == "" {
		p.Username = str("preferred_username")
	}
	if p.HostedDomain == "" && isGoogle(p.Issuer) {
		p.HostedDomain = str("hd")
	}
	if org := str("org_id"); org != "" && !slices.Contains(p.Organizations, org) {
		p.Organizations = append(p.Organizations, org)
	}
}

// addUserinfo completes p from the userinfo endpoint, for a provider
// that keeps the profile out of its ID tokens. A userinfo answer for
// another subject is ignored.
func (l *Login) addUserinfo(ctx context.Context, tok *oauth2.Token, p *Person) {
	ui, err := l.oidc.UserInfo(oidc.ClientContext(ctx, l.http), oauth2.StaticTokenSource(tok))
	if err != nil {
		l.log.Warn("upstream: userinfo", "provider", l.provider.Name, "err", err)
		return
	}
	var c map[string]any
	if ui.Claims(&c) != nil || ui.Subject != p.Claims["sub"] {
		return
	}
	fill(p, c)
}

// stillThere asks the provider whether p still has access: GitHub's
// user API, or the userinfo endpoint with the person's access token
// (refreshed when expired), or without one a refreshed token set (the
// refresh token still works). p is updated from the answer.
func (l *Login) stillThere(ctx context.Context, ts oauth2.TokenSource, p *Person) error {
	if l.provider.kind == kindGitHub {
		tok, err := ts.Token()
		if err != nil {
			return err
		}
		now, err := l.github(ctx, tok)
		if err != nil {
			return err
		}
		if now.Subject != p.Subject {
			return errors.New("the GitHub token is another person's")
		}
		now.ACR, now.AMR, now.AuthTime = p.ACR, p.AMR, p.AuthTime
		*p = *now
		return nil
	}
	if l.userinfo == "" {
		_, err := ts.Token()
		return err
	}
	ui, err := l.oidc.UserInfo(oidc.ClientContext(ctx, l.http), ts)
	if err != nil {
		return err
	}
	if want, _ := p.Claims["sub"].(string); ui.Subject != want {
		return errors.New("userinfo answered for another subject")
	}
	var c map[string]any
	if ui.Claims(&c) == nil {
		p.Email, p.Name, p.Username = "", "", ""
		fill(p, c)
		if p.Email == "" {
			fill(p, p.Claims)
		}
	}
	return nil
}

// entraIssuer checks an Entra issuer: the tenant's own (its tid), and for
// an application of one tenant, that tenant's.
func (l *Login) entraIssuer(iss, tid string) bool {
	want := l.provider.authority + tid + "/v2.0"
	if tid == "" || iss != want {
		return false
	}
	if strings.Contains(l.discoveredIssuer, "{tenantid}") {
		return true
	}
	return iss == l.discoveredIssuer
}
