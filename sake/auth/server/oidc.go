package server

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/auth"
)

// claimsByScope says which OpenID claims each scope releases (OpenID
// Connect Core §5.4).
var claimsByScope = map[string][]string{
	"profile": {"name", "family_name", "given_name", "middle_name", "nickname", "preferred_username",
		"profile", "picture", "website", "gender", "birthdate", "zoneinfo", "locale", "updated_at"},
	"email": {"email", "email_verified"},
}

// userClaims returns the claims the scopes release from the subject.
func userClaims(subj *Subject, scopes []string) map[string]any {
	out := map[string]any{}
	if subj == nil {
		return out
	}
	for _, sc := range scopes {
		for _, name := range claimsByScope[sc] {
			if v, ok := subj.Claims[name]; ok {
				out[name] = v
			}
		}
	}
	return out
}

// idToken mints an OpenID Connect ID token for the client.
// subj is what Login.Lookup said of g.Subject.
func (s *Server) idToken(client *Client, g *Grant, subj *Subject, accessToken string, now time.Time) (string, error) {
	claims := jwt.MapClaims{}
	for k, v := range userClaims(subj, g.Scopes) {
		claims[k] = v
	}
	sum := sha256.Sum256([]byte(accessToken))
	claims["iss"] = s.issuer
	claims["sub"] = g.Subject
	claims["aud"] = client.ID
	claims["azp"] = client.ID
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(s.cfg.AccessTokenTTL).Unix()
	claims["at_hash"] = base64.RawURLEncoding.EncodeToString(sum[:16])
	if !g.AuthTime.IsZero() {
		claims["auth_time"] = g.AuthTime.Unix()
	}
	if g.ACR != "" {
		claims["acr"] = g.ACR
	}
	if len(g.AMR) > 0 {
		claims["amr"] = g.AMR
	}
	if g.Nonce != "" {
		claims["nonce"] = g.Nonce
	}
	return s.keys.sign(claims, "JWT")
}

// userinfo is the OpenID Connect userinfo endpoint: an access token of
// this server with the openid scope, Bearer or DPoP.
func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) {
	fail := func(code, desc string) {
		e := oerr(code, desc)
		w.Header().Set("WWW-Authenticate", `Bearer error="`+e.Code+`", error_description="`+e.Description+`"`)
		writeJSON(w, http.StatusUnauthorized, e)
	}
	scheme, token, err := auth.ParseAuthorization(r.Header)
	if err != nil || token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer`)
		writeJSON(w, http.StatusUnauthorized, oerr(ErrInvalidToken, "an access token is required"))
		return
	}
	claims, rec, ok := s.ownAccessRecord(r.Context(), token)
	if !ok {
		fail(ErrInvalidToken, "the access token is invalid")
		return
	}
	if jkt := claimJKT(claims); jkt != "" {
		u, _ := urlOf(s.endpoint(pathUserinfo))
		got, err := auth.VerifyDPoPProof(r.Header.Get("DPoP"), r.Method, u, token, s.now(), 0, s.replay)
		if !strings.EqualFold(scheme, auth.SchemeDPoP) || err != nil || got != jkt {
			fail(ErrInvalidToken, "the token is DPoP-bound: present it with a valid proof")
			return
		}
	}
	scopes := strings.Fields(stringOf(claims["scope"]))
	sub := rec.Grant.Subject // "" for a client acting for itself
	if !slices.Contains(scopes, "openid") || sub == "" {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="openid"`)
		writeJSON(w, http.StatusForbidden, oerr("insufficient_scope", "the openid scope is required"))
		return
	}
	subj, err := s.lookup(r.Context(), sub)
	if errors.Is(err, errHookPanicked) {
		writeError(w, r, oerr(ErrServerError, "the account cannot be checked now"))
		return
	}
	if err != nil || subj == nil || !subj.Active {
		fail(ErrInvalidToken, "the account is no longer active")
		return
	}
	out := userClaims(subj, scopes)
	out["sub"] = sub
	writeJSON(w, http.StatusOK, out)
}
