package auth

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestIssuerClaims(t *testing.T) {
	t.Parallel()
	iss := &Issuer{Issuer: testIssuer, Secret: testSecret, Audience: testResource, Now: func() time.Time { return t0 }}
	tok, err := iss.Issue("alice", "cli", []string{"a"}, "mfa", t0.Add(-time.Minute), "jkt-value")
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.MapClaims{}
	parsed, err := jwt.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return testSecret, nil },
		jwt.WithTimeFunc(func() time.Time { return t0 }))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Header["typ"] != "at+jwt" || parsed.Method.Alg() != "HS256" {
		t.Fatalf("header %v", parsed.Header)
	}
	if claims["iss"] != testIssuer || claims["aud"] != testResource || claims["sub"] != "alice" ||
		claims["client_id"] != "cli" || claims["scope"] != "a" || claims["acr"] != "mfa" ||
		claims["exp"] != float64(t0.Add(DefaultTokenTTL).Unix()) || claims["jti"] == "" ||
		confirmationJKT(claims) != "jkt-value" {
		t.Fatalf("claims %v", claims)
	}
	tok2, _ := iss.Issue("alice", "cli", []string{"a"}, "mfa", t0.Add(-time.Minute), "jkt-value")
	if tok2 == tok {
		t.Fatal("two tokens are identical: jti is not random")
	}
	// A bound token is refused without its proof.
	v, _ := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret,
		Now: func() time.Time { return t0 }})
	if _, err := v.Verify(context.Background(), bearer(tok)); err == nil {
		t.Fatal("bound token accepted as Bearer")
	}
}

func TestIssuerRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for _, iss := range []*Issuer{
		{Secret: testSecret, Audience: testResource},
		{Issuer: testIssuer, Secret: testSecret},
		{Issuer: testIssuer, Secret: []byte("short"), Audience: testResource},
	} {
		if _, err := iss.Issue("s", "c", nil, "", time.Time{}, ""); err == nil {
			t.Errorf("%+v issued a token", iss)
		}
	}
}
