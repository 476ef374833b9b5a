package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

func claimJKT(c jwt.MapClaims) string {
	cnf, _ := c["cnf"].(map[string]any)
	return stringOf(cnf["jkt"])
}

func urlOf(s string) (*url.URL, error) { return url.Parse(s) }

// ownAccessToken verifies an access token this server issued and not
// revoked, returning its claims.
func (s *Server) ownAccessToken(ctx context.Context, token string) (jwt.MapClaims, bool) {
	claims, _, ok := s.ownAccessRecord(ctx, token)
	return claims, ok
}

// ownAccessRecord is ownAccessToken with the token's stored record, whose
// Grant.Subject is the person ("" for a client acting for itself, whose
// sub claim is its client id).
func (s *Server) ownAccessRecord(ctx context.Context, token string) (jwt.MapClaims, *Credential, bool) {
	if len(token) > 8192 || strings.Count(token, ".") != 2 {
		return nil, nil, false
	}
	claims, err := s.keys.parse(token, s.issuer, s.now())
	if err != nil {
		return nil, nil, false
	}
	jti := stringOf(claims["jti"])
	if jti == "" {
		return nil, nil, false
	}
	rec, err := s.store.Credential(ctx, hashHandle(jti))
	if err != nil || rec.Kind != KindAccess || rec.Revoked {
		return nil, nil, false
	}
	return claims, rec, true
}

// revoke is the revocation endpoint (RFC 7009): a refresh token revokes
// its whole family; an access token too. Unknown tokens, and tokens of
// other clients, are answered 200 without effect (RFC 7009 §2.2).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		writeError(w, r, e)
		return
	}
	client, e := s.authenticateClient(r)
	if e != nil {
		writeError(w, r, e)
		return
	}
	ctx := r.Context()
	tok := r.PostForm.Get("token")
	if tok == "" {
		writeError(w, r, oerr(ErrInvalidRequest, "token is missing"))
		return
	}
	if hint := r.PostForm.Get("token_type_hint"); hint != "" && hint != "access_token" && hint != "refresh_token" {
		writeError(w, r, oerr(ErrUnsupportedTokenType, "token_type_hint must be access_token or refresh_token"))
		return
	}
	family := ""
	if cred, err := s.store.Credential(ctx, hashHandle(tok)); err == nil && cred.Kind == KindRefresh {
		if cred.Grant.ClientID == client.ID {
			family = cred.Family
		}
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		writeError(w, r, s.storeError(err))
		return
	} else if claims, rec, ok := s.ownAccessRecord(ctx, tok); ok && stringOf(claims["client_id"]) == client.ID {
		family = rec.Family
	}
	if family != "" {
		if err := s.revokeFamily(ctx, family); err != nil {
			writeError(w, r, s.storeError(err))
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// introspect is the introspection endpoint (RFC 7662), for confidential
// clients (resource servers): active tokens of this server, inactive for
// everything else.
func (s *Server) introspect(w http.ResponseWriter, r *http.Request) {
	if e := readForm(w, r); e != nil {
		writeError(w, r, e)
		return
	}
	client, e := s.authenticateClient(r)
	if e != nil {
		writeError(w, r, e)
		return
	}
	if client.public() {
		writeError(w, r, oerr(ErrInvalidClient, "introspection needs a confidential client"))
		return
	}
	ctx := r.Context()
	tok := r.PostForm.Get("token")
	if tok == "" {
		writeError(w, r, oerr(ErrInvalidRequest, "token is missing"))
		return
	}
	inactive := map[string]any{"active": false}
	if claims, rec, ok := s.ownAccessRecord(ctx, tok); ok {
		if sub := rec.Grant.Subject; sub != "" {
			subj, err := s.lookup(ctx, sub)
			if errors.Is(err, errHookPanicked) {
				writeError(w, r, oerr(ErrServerError, "the account cannot be checked now"))
				return
			}
			if err != nil || subj == nil || !subj.Active {
				writeJSON(w, http.StatusOK, inactive)
				return
			}
		}
		out := map[string]any{"active": true, "token_type": "Bearer"}
		if claimJKT(claims) != "" {
			out["token_type"] = "DPoP"
		}
		for k, v := range claims {
			out[k] = v
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	if cred, err := s.store.Credential(ctx, hashHandle(tok)); err == nil && cred.Kind == KindRefresh &&
		!cred.Used && !cred.Revoked && cred.Grant.ClientID == client.ID {
		g := cred.Grant
		writeJSON(w, http.StatusOK, map[string]any{"active": true, "token_type": "refresh_token",
			"client_id": g.ClientID, "sub": g.Subject, "scope": strings.Join(g.Scopes, " "),
			"exp": cred.Expires.Unix(), "iss": s.issuer})
		return
	}
	writeJSON(w, http.StatusOK, inactive)
}
