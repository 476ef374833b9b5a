package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/auth"
)

// tokenResponse is a successful token endpoint answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in"`
	RefreshToken    string `json:"refresh_token,omitempty"`
	Scope           string `json:"scope,omitempty"`
	IDToken         string `json:"id_token,omitempty"`
	IssuedTokenType string `json:"issued_token_type,omitempty"`
}

// token is the token endpoint.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		writeError(w, r, e)
		return
	}
	client, e := s.authenticateClient(r)
	if e != nil {
		writeError(w, r, e)
		return
	}
	jkt, e := s.dpopProof(r, client)
	if e != nil {
		writeError(w, r, e)
		return
	}
	s.maybeRotate()
	grant := r.PostForm.Get("grant_type")
	switch grant {
	case "authorization_code":
		e = s.codeGrant(w, r, client, jkt)
	case "refresh_token":
		e = s.refreshGrant(w, r, client, jkt)
	case "client_credentials":
		e = s.clientCredentials(w, r, client, jkt)
	case grantDevice:
		e = s.deviceGrant(w, r, client, jkt)
	case GrantTokenExchange:
		e = s.exchangeGrant(w, r, client, jkt)
	case "":
		e = oerr(ErrInvalidRequest, "grant_type is missing")
	default:
		e = oerr(ErrUnsupportedGrantType, "grant_type "+grant+" is not supported")
	}
	if e != nil {
		writeError(w, r, e)
	}
}

// dpopProof verifies a DPoP header (RFC 9449 §5) and returns the key
// thumbprint to bind tokens to, or "" without one.
func (s *Server) dpopProof(r *http.Request, client *Client) (string, *oauthError) {
	proofs := r.Header.Values("DPoP")
	if len(proofs) == 0 {
		if client.DPoPBound {
			return "", oerr(ErrInvalidDPoPProof, "this client must send a DPoP proof")
		}
		return "", nil
	}
	if len(proofs) > 1 {
		return "", oerr(ErrInvalidDPoPProof, "send exactly one DPoP header")
	}
	u, _ := url.Parse(s.endpoint(pathToken))
	jkt, err := auth.VerifyDPoPProof(proofs[0], http.MethodPost, u, "", s.now(), 0, s.replay)
	if err != nil {
		return "", oerr(ErrInvalidDPoPProof, "the DPoP proof is invalid")
	}
	return jkt, nil
}

// codeGrant redeems an authorization code (OAuth 2.1 §4.1.3).
func (s *Server) codeGrant(w http.ResponseWriter, r *http.Request, client *Client, jkt string) *oauthError {
	ctx := r.Context()
	f := r.PostForm
	code, verifier := f.Get("code"), f.Get("code_verifier")
	if code == "" {
		return oerr(ErrInvalidRequest, "code is missing")
	}
	cred, err := s.store.Consume(ctx, hashHandle(code))
	if errors.Is(err, ErrNotFound) || err == nil && cred.Kind != KindCode {
		return oerr(ErrInvalidGrant, "the code is unknown or expired")
	}
	if err != nil {
		return s.storeError(err)
	}
	g := &cred.Grant
	if cred.Used || cred.Revoked {
		// A replayed code: revoke everything it issued (OAuth 2.1 §4.1.3).
		_ = s.revokeFamily(ctx, cred.Family)
		return oerr(ErrInvalidGrant, "the code was already used; the tokens it issued are revoked")
	}
	switch {
	case g.ClientID != client.ID:
		return oerr(ErrInvalidGrant, "the code was issued to another client")
	case verifier == "":
		return oerr(ErrInvalidRequest, "code_verifier is missing")
	case !validVerifier(verifier) || subtle.ConstantTimeCompare([]byte(s256(verifier)), []byte(g.CodeChallenge)) != 1:
		return oerr(ErrInvalidGrant, "code_verifier does not match the code_challenge")
	case g.RedirectGiven && f.Get("redirect_uri") != g.RedirectURI:
		return oerr(ErrInvalidGrant, "redirect_uri differs from the authorization request's")
	case !g.RedirectGiven && f.Has("redirect_uri") && f.Get("redirect_uri") != g.RedirectURI:
		return oerr(ErrInvalidGrant, "redirect_uri differs from the registered one")
	}
	res, e := s.narrowResource(f["resource"], g.Resource)
	if e != nil {
		return e
	}
	if e := s.active(ctx, g.Subject, cred.Family); e != nil {
		return e
	}
	issued := *g
	issued.Resource = res
	issued.JKT = jkt
	return s.respond(w, r, client, &issued, cred.Family, client.allows("refresh_token"))
}

// narrowResource checks the token request's resource parameters (RFC
// 8707 §2.2): each must be among what was granted; none keeps them all.
func (s *Server) narrowResource(raw, granted []string) ([]string, *oauthError) {
	if len(raw) == 0 {
		return granted, nil
	}
	asked, e := s.resourcesFor(raw)
	if e != nil {
		return nil, e
	}
	if !containsAll(granted, asked) {
		return nil, oerr(ErrInvalidTarget, "the resource was not part of the authorization")
	}
	return asked, nil
}

// active asks the application whether the subject may still have tokens;
// if not, the family is revoked.
func (s *Server) active(ctx context.Context, subject, family string) *oauthError {
	if subject == "" {
		return nil
	}
	subj, err := s.lookup(ctx, subject)
	if errors.Is(err, errHookPanicked) {
		return oerr(ErrServerError, "the account cannot be checked now")
	}
	if err != nil || subj == nil || !subj.Active {
		_ = s.revokeFamily(ctx, family)
		return oerr(ErrInvalidGrant, "the account may no longer authorize this application")
	}
	return nil
}

// refreshGrant rotates a refresh token (OAuth 2.1 §4.3); a replayed one
// revokes its family.
func (s *Server) refreshGrant(w http.ResponseWriter, r *http.Request, client *Client, jkt string) *oauthError {
	ctx := r.Context()
	f := r.PostForm
	rt := f.Get("refresh_token")
	if rt == "" {
		return oerr(ErrInvalidRequest, "refresh_token is missing")
	}
	if !client.allows("refresh_token") {
		return oerr(ErrUnauthorizedClient, "this client may not use refresh tokens")
	}
	cred, err := s.store.Consume(ctx, hashHandle(rt))
	if errors.Is(err, ErrNotFound) || err == nil && cred.Kind != KindRefresh {
		return oerr(ErrInvalidGrant, "the refresh token is unknown or expired")
	}
	if err != nil {
		return s.storeError(err)
	}
	g := &cred.Grant
	if g.ClientID != client.ID {
		return oerr(ErrInvalidGrant, "the refresh token was issued to another client")
	}
	if cred.Revoked {
		return oerr(ErrInvalidGrant, "the refresh token was revoked")
	}
	if cred.Used {
		_ = s.revokeFamily(ctx, cred.Family)
		s.log.Warn("authserver: refresh token replayed; its family is revoked", "client_id", client.ID)
		return oerr(ErrInvalidGrant, "the refresh token was already used; every token of this authorization is revoked")
	}
	if !g.Created.IsZero() && !s.now().Before(g.Created.Add(s.cfg.GrantLifetime)) {
		_ = s.revokeFamily(ctx, cred.Family)
		return oerr(ErrInvalidGrant, "this authorization has reached its maximum lifetime: authorize again")
	}
	if g.JKT != "" && g.JKT != jkt {
		return oerr(ErrInvalidDPoPProof, "this refresh token is bound to a DPoP key: prove possession of it")
	}
	issued := *g
	if f.Has("scope") {
		asked := strings.Fields(f.Get("scope"))
		if len(asked) == 0 || !containsAll(g.Scopes, asked) {
			return oerr(ErrInvalidScope, "a refresh may only narrow the granted scopes")
		}
		issued.Scopes = asked
	}
	res, e := s.narrowResource(f["resource"], g.Resource)
	if e != nil {
		return e
	}
	issued.Resource = res
	if e := s.active(ctx, g.Subject, cred.Family); e != nil {
		if e.Code == ErrServerError {
			// The login failed, not the client: the refresh token is
			// not spent, or its next use would revoke the authorization
			// as a replay.
			cred.Used = false
			if err := s.store.PutCredential(ctx, cred); err != nil {
				s.log.Error("authserver: a refresh token cannot be restored", "err", err)
			}
		}
		return e
	}
	if issued.JKT == "" {
		issued.JKT = jkt
	}
	// The new refresh token keeps the whole grant; the access token may
	// be narrower.
	return s.respondRefresh(w, r, client, g, &issued, cred.Family)
}

// clientCredentials issues a token to a confidential client acting for
// itself (RFC 6749 §4.4): no subject, no refresh token.
func (s *Server) clientCredentials(w http.ResponseWriter, r *http.Request, client *Client, jkt string) *oauthError {
	if client.public() {
		return oerr(ErrUnauthorizedClient, "client credentials need a confidential client")
	}
	if !client.allows("client_credentials") {
		return oerr(ErrUnauthorizedClient, "this client may not use the client credentials grant")
	}
	if client.Dynamic && !s.cfg.DynamicClientCredentials {
		return oerr(ErrUnauthorizedClient, "dynamically registered clients may not use the client credentials grant on this server")
	}
	f := r.PostForm
	scopes, e := s.scopesFor(f.Get("scope"), f.Has("scope"), client)
	if e != nil {
		return e
	}
	scopes = slices.DeleteFunc(scopes, func(x string) bool { return x == "openid" || x == "offline_access" })
	res, e := s.resourcesFor(f["resource"])
	if e != nil {
		return e
	}
	g := &Grant{ClientID: client.ID, Scopes: scopes, Resource: res, JKT: jkt, Created: s.now()}
	return s.respond(w, r, client, g, randomToken(16), false)
}

func (s *Server) storeError(err error) *oauthError {
	if errors.Is(err, ErrStoreFull) {
		return oerr(ErrTemporarilyUnavailable, "the server is busy; try again later")
	}
	s.log.Error("authserver: store", "err", err)
	return oerr(ErrServerError, "the server cannot answer now")
}

// respond issues an access token (and a refresh token, and an ID token
// for openid) for g and answers them.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, client *Client, g *Grant, family string, refresh bool) *oauthError {
	var full *Grant
	if refresh && g.Subject != "" {
		full = g
	}
	return s.respondRefresh(w, r, client, full, g, family)
}

// respondRefresh issues tokens for issued; when full is not nil a refresh
// token carrying full is issued too.
func (s *Server) respondRefresh(w http.ResponseWriter, r *http.Request, client *Client, full, issued *Grant, family string) *oauthError {
	ctx := r.Context()
	now := s.now()
	// The ID token's claims are asked for first: a failing Login.Lookup
	// leaves no token stored.
	var subj *Subject
	openid := slices.Contains(issued.Scopes, "openid") && issued.Subject != ""
	if openid {
		var err error
		if subj, err = s.lookup(ctx, issued.Subject); err != nil {
			s.log.Error("authserver: id token", "err", err)
			return oerr(ErrServerError, "the ID token cannot be issued")
		}
	}
	at, exp, err := s.accessToken(ctx, issued, family, now)
	if err != nil {
		return s.storeError(err)
	}
	resp := tokenResponse{AccessToken: at, TokenType: "Bearer", ExpiresIn: int64(exp.Sub(now) / time.Second),
		Scope: strings.Join(issued.Scopes, " ")}
	if issued.JKT != "" {
		resp.TokenType = "DPoP"
	}
	if full != nil {
		rt := randomToken(32)
		rg := *full
		rg.JKT = issued.JKT
		if rg.JKT == "" {
			rg.JKT = full.JKT
		}
		exp := now.Add(s.cfg.RefreshTokenTTL)
		if end := rg.Created.Add(s.cfg.GrantLifetime); !rg.Created.IsZero() && end.Before(exp) {
			exp = end
		}
		cred := &Credential{Hash: hashHandle(rt), Kind: KindRefresh, Family: family, Expires: exp, Grant: rg}
		if err := s.store.PutCredential(ctx, cred); err != nil {
			return s.storeError(err)
		}
		resp.RefreshToken = rt
	}
	if openid {
		idt, err := s.idToken(client, issued, subj, at, now)
		if err != nil {
			s.log.Error("authserver: id token", "err", err)
			return oerr(ErrServerError, "the ID token cannot be issued")
		}
		resp.IDToken = idt
	}
	s.clientAuthorized(ctx, client.ID, client)
	writeJSON(w, http.StatusOK, &resp)
	return nil
}

// accessToken mints a JWT access token (RFC 9068) and records its jti.
func (s *Server) accessToken(ctx context.Context, g *Grant, family string, now time.Time) (string, time.Time, error) {
	return s.mintAccessToken(ctx, g, family, now, now.Add(s.cfg.AccessTokenTTL), nil)
}

// mintAccessToken is accessToken expiring at exp, with act (RFC 8693
// §4.1) when not nil.
func (s *Server) mintAccessToken(ctx context.Context, g *Grant, family string, now, exp time.Time, act map[string]any) (string, time.Time, error) {
	jti := randomToken(16)
	claims := jwt.MapClaims{
		"iss":       s.issuer,
		"client_id": g.ClientID,
		"iat":       now.Unix(),
		"nbf":       now.Unix(),
		"exp":       exp.Unix(),
		"jti":       jti,
		"scope":     strings.Join(g.Scopes, " "),
	}
	if len(g.Resource) == 1 {
		claims["aud"] = g.Resource[0]
	} else {
		claims["aud"] = g.Resource
	}
	if g.Subject != "" {
		claims["sub"] = g.Subject
		if g.ACR != "" {
			claims["acr"] = g.ACR
		}
		if !g.AuthTime.IsZero() {
			claims["auth_time"] = g.AuthTime.Unix()
		}
		if len(g.AMR) > 0 {
			claims["amr"] = g.AMR
		}
	} else {
		// No person (client credentials): RFC 9068 §2.2 requires sub
		// and names the client; sake/auth takes sub == client_id for
		// the machine client acting for itself.
		claims["sub"] = g.ClientID
	}
	if g.JKT != "" {
		claims["cnf"] = map[string]any{"jkt": g.JKT}
	}
	if act != nil {
		claims["act"] = act
	}
	tok, err := s.keys.sign(claims, "at+jwt")
	if err != nil {
		return "", time.Time{}, err
	}
	rec := &Credential{Hash: hashHandle(jti), Kind: KindAccess, Family: family, Expires: exp,
		Grant: Grant{ClientID: g.ClientID, Subject: g.Subject}}
	if err := s.store.PutCredential(ctx, rec); err != nil {
		return "", time.Time{}, err
	}
	return tok, exp, nil
}
