package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// identityFromClaims maps token claims (a JWT's payload or an introspection
// response) to an identity: sub; client_id, else azp, else cid; scope, else
// scp; acr; auth_time; and all the claims. A sub equal to the client id
// is a machine client acting for itself (RFC 9068 §2.2, client
// credentials): the identity has no Subject. Ownership rests on sub and the
// client id, so a token whose sub or client id is not a string, or that
// names neither, is refused (invalid_token): it would own nothing, or
// what another token owns.
func identityFromClaims(claims map[string]any) (*protocol.Identity, error) {
	id := &protocol.Identity{
		FromToken: true,
		ACR:       stringClaim(claims, "acr"),
		Claims:    claims,
	}
	if v, ok := claims["sub"]; ok && v != nil {
		s, isString := v.(string)
		if !isString {
			return nil, InvalidToken(errors.New("sub is not a string"))
		}
		id.Subject = s
	}
	for _, name := range [...]string{"client_id", "azp", "cid"} {
		v, ok := claims[name]
		if !ok || v == nil {
			continue
		}
		s, isString := v.(string)
		if !isString {
			return nil, InvalidToken(fmt.Errorf("%s is not a string", name))
		}
		if s != "" {
			id.ClientID = s
			break
		}
	}
	if id.Subject == "" && id.ClientID == "" {
		return nil, InvalidToken(errors.New("the token names neither a subject (sub) nor a client (client_id, azp or cid)"))
	}
	if id.Subject == id.ClientID {
		// No person: the client acts for itself (client credentials),
		// and RFC 9068 §2.2 names it as the subject. It owns what its
		// client id owns.
		id.Subject = ""
	}
	if v, ok := claims["scope"]; ok {
		id.Scopes = scopeList(v)
	} else if v, ok := claims["scp"]; ok {
		id.Scopes = scopeList(v)
	}
	if t, ok := numericDate(claims["auth_time"]); ok {
		id.AuthTime = t
	}
	return id, nil
}

func stringClaim(claims map[string]any, name string) string {
	s, _ := claims[name].(string)
	return s
}

// scopeList reads a space-separated string or an array of strings.
func scopeList(v any) []string {
	switch s := v.(type) {
	case string:
		return strings.Fields(s)
	case []any:
		out := make([]string, 0, len(s))
		for _, e := range s {
			if str, ok := e.(string); ok && str != "" {
				out = append(out, str)
			}
		}
		return out
	case []string:
		return s
	}
	return nil
}

// numericDate reads a NumericDate (seconds since the epoch, possibly
// fractional) decoded as float64 or json.Number.
func numericDate(v any) (time.Time, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return time.Time{}, false
		}
	case int64:
		f = float64(n)
	case int:
		f = float64(n)
	default:
		return time.Time{}, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e11 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// confirmationJKT returns cnf.jkt, the thumbprint a DPoP-bound token is
// bound to (RFC 9449 §6), or "".
func confirmationJKT(claims map[string]any) string {
	cnf, _ := claims["cnf"].(map[string]any)
	jkt, _ := cnf["jkt"].(string)
	return jkt
}

// containsAny reports whether have and want share an element.
func containsAny(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}
