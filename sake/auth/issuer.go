package auth

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultTokenTTL is the lifetime of tokens an Issuer mints when TTL is zero.
const DefaultTokenTTL = time.Hour

// Issuer mints HS256 access tokens that a JWTVerifier configured with the
// same Issuer, Audience and HMACSecret accepts: for a server that issues its
// own tokens, and for the framework's in-memory test client, which needs
// real tokens. Secret must be at least 32 bytes.
type Issuer struct {
	// Issuer is the iss claim.
	Issuer string
	// Secret is the HS256 key, shared with JWTConfig.HMACSecret.
	Secret []byte
	// Audience is the aud claim: the resource's canonical URL.
	Audience string
	// TTL is the token lifetime; default DefaultTokenTTL.
	TTL time.Duration
	// Now returns the current time; default time.Now. For tests.
	Now func() time.Time
}

// Issue mints a token (header typ "at+jwt", RFC 9068) with iss, aud, iat,
// nbf, exp and a random jti, and with sub, client_id, scope (space-
// separated), acr, auth_time and cnf.jkt (binding the token to a DPoP key,
// see Thumbprint) each only when given.
func (i *Issuer) Issue(subject, clientID string, scopes []string, acr string, authTime time.Time,
	cnfJKT string) (string, error) {
	switch {
	case i.Issuer == "":
		return "", errors.New("auth: Issuer.Issuer is required")
	case i.Audience == "":
		return "", errors.New("auth: Issuer.Audience is required")
	case len(i.Secret) < minHMACSecret:
		return "", fmt.Errorf("auth: Issuer.Secret must be at least %d bytes", minHMACSecret)
	}
	now := time.Now()
	if i.Now != nil {
		now = i.Now()
	}
	ttl := i.TTL
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	claims := jwt.MapClaims{
		"iss": i.Issuer,
		"aud": i.Audience,
		"iat": now.Unix(),
		"nbf": now.Unix(),
		"exp": now.Add(ttl).Unix(),
		"jti": randomID(),
	}
	if subject != "" {
		claims["sub"] = subject
	}
	if clientID != "" {
		claims["client_id"] = clientID
	}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	if acr != "" {
		claims["acr"] = acr
	}
	if !authTime.IsZero() {
		claims["auth_time"] = authTime.Unix()
	}
	if cnfJKT != "" {
		claims["cnf"] = map[string]any{"jkt": cnfJKT}
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	t.Header["typ"] = "at+jwt"
	return t.SignedString(i.Secret)
}
