package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
)

// Token exchange (RFC 8693) identifiers.
const (
	// GrantTokenExchange is the token exchange grant type. Put it in the
	// GrantTypes of a pre-registered confidential client, with
	// ExchangeFrom, to let that resource server exchange its callers'
	// tokens.
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	// TokenTypeAccessToken is the token type of an access token: the
	// subject_token_type the exchange accepts (TokenTypeJWT too, as this
	// server's access tokens are JWTs) and the issued_token_type of what
	// it issues.
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
	// TokenTypeJWT is the token type of a JWT.
	TokenTypeJWT = "urn:ietf:params:oauth:token-type:jwt"
	// TokenTypeRefreshToken is the token type of a refresh token, which
	// the exchange refuses: it trades access tokens only.
	TokenTypeRefreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
)

// TokenExchange is a token exchange request that passed every check, as
// the Config.TokenExchange policy sees it.
type TokenExchange struct {
	// Client is the resource server asking: the actor.
	Client *Client
	// Subject is the person the subject token was issued for; the new
	// token is issued for them too.
	Subject string
	// SubjectClientID is the client the subject token was issued to: the
	// person's MCP client, or the resource server that exchanged it
	// before (see Actors).
	SubjectClientID string
	// Actors are the subject token's act chain, the last actor first
	// (auth.Actors order); empty for a token the person's client got.
	// The new token's chain is Client.ID followed by these.
	Actors []string
	// Resource is the audience asked for (canonical URLs among
	// Config.Resources).
	Resource []string
	// Scopes are the scopes the new token will carry.
	Scopes []string
}

// exchangeGrant is the token exchange grant (RFC 8693 §2): a resource
// server allowed to (Client.GrantTypes has GrantTokenExchange, and
// Client.ExchangeFrom) trades an access token of this server sent to it
// for one for another resource of this server, with a subset of its
// scopes, acting for the same person. The new token records the chain
// of actors in act, lives no longer than the subject token, belongs to
// its authorization (revoking either revokes both), and never comes
// with a refresh token. The same subject token may be exchanged again:
// each exchange issues a new token.
func (s *Server) exchangeGrant(w http.ResponseWriter, r *http.Request, client *Client, jkt string) *oauthError {
	ctx := r.Context()
	f := r.PostForm
	if _, static := s.static[client.ID]; !static || client.public() || !client.allows(GrantTokenExchange) ||
		len(client.ExchangeFrom) == 0 {
		return oerr(ErrUnauthorizedClient, "this client may not exchange tokens: that needs a pre-registered confidential client with the token exchange grant type and ExchangeFrom")
	}
	switch {
	case f.Has("actor_token") || f.Has("actor_token_type"):
		return oerr(ErrInvalidRequest, "actor_token is not accepted: the authenticated client is the actor")
	case f.Get("subject_token") == "":
		return oerr(ErrInvalidRequest, "subject_token is missing")
	case f.Get("subject_token_type") == "":
		return oerr(ErrInvalidRequest, "subject_token_type is missing")
	}
	for _, name := range []string{"subject_token", "subject_token_type", "requested_token_type", "scope"} {
		if len(f[name]) > 1 {
			return oerr(ErrInvalidRequest, name+" is given more than once")
		}
	}
	switch f.Get("subject_token_type") {
	case TokenTypeAccessToken, TokenTypeJWT:
	case TokenTypeRefreshToken:
		return oerr(ErrInvalidRequest, "a refresh token cannot be exchanged: send the access token")
	default:
		return oerr(ErrInvalidRequest, "subject_token_type must be "+TokenTypeAccessToken)
	}
	if rt := f.Get("requested_token_type"); rt != "" && rt != TokenTypeAccessToken {
		return oerr(ErrInvalidRequest, "requested_token_type must be "+TokenTypeAccessToken+": only access tokens are issued")
	}

	claims, rec, prior, e := s.exchangeSubject(ctx, f.Get("subject_token"), client)
	if e != nil {
		return e
	}
	subject := rec.Grant.Subject

	targets := append(slices.Clone(f["resource"]), f["audience"]...)
	if len(targets) == 0 {
		return oerr(ErrInvalidRequest, "name the target: resource or audience")
	}
	res, e := s.resourcesFor(targets)
	if e != nil {
		return e
	}
	have := strings.Fields(stringOf(claims["scope"]))
	scopes, e := exchangeScopes(f.Get("scope"), f.Has("scope"), have, client)
	if e != nil {
		return e
	}
	actors := make([]string, len(prior))
	for i, a := range prior {
		actors[i] = a.Subject
	}
	if s.cfg.TokenExchange != nil {
		x := &TokenExchange{Client: cloneClient(client), Subject: subject, SubjectClientID: stringOf(claims["client_id"]),
			Actors: actors, Resource: slices.Clone(res), Scopes: slices.Clone(scopes)}
		if e := s.exchangePolicy(ctx, x); e != nil {
			return e
		}
	}
	if e := s.active(ctx, subject, rec.Family); e != nil {
		return e
	}

	now := s.now()
	until := now.Add(s.cfg.AccessTokenTTL)
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil && exp.Before(until) {
		until = exp.Time
	}
	if !now.Before(until) {
		return oerr(ErrInvalidRequest, "the subject_token has expired")
	}
	g := &Grant{ClientID: client.ID, Subject: subject, Scopes: scopes, Resource: res, JKT: jkt,
		ACR: stringOf(claims["acr"]), AMR: stringsOf(claims["amr"])}
	if at, ok := claims["auth_time"].(float64); ok {
		g.AuthTime = time.Unix(int64(at), 0)
	}
	act := map[string]any{"sub": client.ID}
	if v, ok := claims["act"]; ok {
		act["act"] = v
	}
	tok, exp, err := s.mintAccessToken(ctx, g, rec.Family, now, until, act)
	if err != nil {
		return s.storeError(err)
	}
	resp := tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int64(exp.Sub(now) / time.Second),
		Scope: strings.Join(scopes, " "), IssuedTokenType: TokenTypeAccessToken}
	if jkt != "" {
		resp.TokenType = "DPoP"
	}
	s.log.Info("authserver: token exchanged", "client_id", client.ID, "subject_client_id", stringOf(claims["client_id"]),
		"resource", strings.Join(res, " "), "depth", len(prior)+1)
	writeJSON(w, http.StatusOK, &resp)
	return nil
}

// exchangeSubject checks a subject token: an active access token of
// this server, for a person, sent to one of client's ExchangeFrom
// resources, with room in its act chain (prior, current actor first).
func (s *Server) exchangeSubject(ctx context.Context, token string, client *Client) (jwt.MapClaims, *Credential, []auth.Actor, *oauthError) {
	claims, rec, ok := s.ownAccessRecord(ctx, token)
	if !ok {
		return nil, nil, nil, oerr(ErrInvalidRequest, "the subject_token is not an active access token of this server")
	}
	if rec.Grant.Subject == "" {
		return nil, nil, nil, oerr(ErrInvalidRequest, "the subject_token names no person: a client's own token cannot be exchanged")
	}
	if !slices.ContainsFunc(audienceOf(claims), func(a string) bool { return slices.Contains(client.ExchangeFrom, a) }) {
		return nil, nil, nil, oerr(ErrInvalidRequest, "the subject_token was not issued for a resource of this client")
	}
	// This server signs only well-formed chains: the subject token's is.
	prior := auth.Actors(&sake.Identity{Claims: claims})
	if len(prior)+1 > s.cfg.MaxActorDepth {
		return nil, nil, nil, oerr(ErrInvalidRequest, "the subject_token was exchanged too many times already")
	}
	return claims, rec, prior, nil
}

// exchangePolicy asks Config.TokenExchange; a panic in it refuses the
// exchange (500 server_error) and is logged.
func (s *Server) exchangePolicy(ctx context.Context, x *TokenExchange) (e *oauthError) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("authserver: Config.TokenExchange panicked", "panic", fmt.Sprint(v), "client_id", x.Client.ID)
			e = oerr(ErrServerError, "the exchange cannot be decided now")
		}
	}()
	if err := s.cfg.TokenExchange(ctx, x); err != nil {
		return oerr(ErrInvalidTarget, "this exchange is refused: "+err.Error())
	}
	return nil
}

// exchangeScopes picks the new token's scopes: those asked for, each
// held by the subject token (and allowed to the client, if it is
// bounded); without scope, what the subject token holds that the client
// may have. offline_access never passes: no refresh token is issued.
func exchangeScopes(raw string, given bool, have []string, client *Client) ([]string, *oauthError) {
	allowed := func(sc string) bool { return len(client.Scopes) == 0 || slices.Contains(client.Scopes, sc) }
	if !given {
		out := slices.DeleteFunc(slices.Clone(have), func(sc string) bool { return sc == "offline_access" || !allowed(sc) })
		return out, nil
	}
	asked := strings.Fields(raw)
	if len(asked) == 0 || len(asked) > 64 {
		return nil, oerr(ErrInvalidScope, "scope must name between 1 and 64 scopes")
	}
	var out []string
	for _, sc := range asked {
		switch {
		case !slices.Contains(have, sc):
			return nil, oerr(ErrInvalidScope, "scope "+sc+" is not held by the subject_token")
		case sc == "offline_access":
			return nil, oerr(ErrInvalidScope, "an exchanged token has no refresh token: do not ask for offline_access")
		case !allowed(sc):
			return nil, oerr(ErrInvalidScope, "this client may not ask for scope "+sc)
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// audienceOf reads aud: a string or an array of strings.
func audienceOf(c jwt.MapClaims) []string {
	aud, err := c.GetAudience()
	if err != nil {
		return nil
	}
	return aud
}

// stringsOf reads an array of strings; anything else is nil.
func stringsOf(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// checkExchangeClient checks a pre-registered client's token exchange
// settings: the grant type needs a confidential client and ExchangeFrom
// naming resources of this server (made canonical here), and
// ExchangeFrom needs the grant type.
func (s *Server) checkExchangeClient(c *Client) error {
	exchanges := c.allows(GrantTokenExchange)
	switch {
	case !exchanges && len(c.ExchangeFrom) > 0:
		return fmt.Errorf("authserver: client %q: ExchangeFrom needs GrantTokenExchange in GrantTypes", c.ID)
	case !exchanges:
		return nil
	case c.public():
		return fmt.Errorf("authserver: client %q: token exchange needs a confidential client (a SecretHash)", c.ID)
	case len(c.ExchangeFrom) == 0:
		return fmt.Errorf("authserver: client %q: token exchange needs ExchangeFrom, the resources whose tokens it may exchange", c.ID)
	}
	for i, r := range c.ExchangeFrom {
		found, e := s.resourcesFor([]string{r})
		if e != nil {
			return fmt.Errorf("authserver: client %q: ExchangeFrom: %s", c.ID, e.Description)
		}
		c.ExchangeFrom[i] = found[0]
	}
	return nil
}

// exchangesFrom reports whether a pre-registered client may exchange
// tokens issued for resource.
func (s *Server) exchangesFrom(resource string) bool {
	found, e := s.resourcesFor([]string{resource})
	if e != nil {
		return false
	}
	for _, c := range s.static {
		if c.allows(GrantTokenExchange) && slices.Contains(c.ExchangeFrom, found[0]) {
			return true
		}
	}
	return false
}
