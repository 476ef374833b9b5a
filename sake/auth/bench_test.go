package auth

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func benchVerify(b *testing.B, v *JWTVerifier, r *TokenRequest) {
	b.Helper()
	ctx := context.Background()
	if _, err := v.Verify(ctx, r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Verify(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyRS256(b *testing.B) {
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		Keys: StaticKeys(map[string]any{"k": &rsaKey().PublicKey}), Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	benchVerify(b, v, bearer(sign(b, jwt.SigningMethodRS256, rsaKey(), "k", claimsAt(t0))))
}

func BenchmarkVerifyRS256JWKS(b *testing.B) {
	srv := newJWKSServer(b, jwkDoc(b, &rsaKey().PublicKey, "k", "RS256", "sig"))
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		Keys: NewJWKS(srv.URL, srv.Client(), Clock(func() time.Time { return t0 })), Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	benchVerify(b, v, bearer(sign(b, jwt.SigningMethodRS256, rsaKey(), "k", claimsAt(t0))))
	if n := srv.hits.Load(); n != 1 {
		b.Fatalf("JWKS fetched %d times", n)
	}
}

func BenchmarkVerifyES256(b *testing.B) {
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		Keys: StaticKeys(map[string]any{"k": &ecKey().PublicKey}), Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	benchVerify(b, v, bearer(sign(b, jwt.SigningMethodES256, ecKey(), "k", claimsAt(t0))))
}

func BenchmarkVerifyHS256(b *testing.B) {
	iss := &Issuer{Issuer: testIssuer, Secret: testSecret, Audience: testResource, Now: func() time.Time { return t0 }}
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret,
		Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	tok, err := iss.Issue("alice", "c", []string{"a", "b"}, "", time.Time{}, "")
	if err != nil {
		b.Fatal(err)
	}
	benchVerify(b, v, bearer(tok))
}

func BenchmarkVerifyDPoPES256(b *testing.B) {
	iss := &Issuer{Issuer: testIssuer, Secret: testSecret, Audience: testResource, Now: func() time.Time { return t0 }}
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret,
		Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	jkt, _ := Thumbprint(ecKey().Public())
	tok, _ := iss.Issue("alice", "c", nil, "", time.Time{}, jkt)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		p, err := NewDPoPProof(ecKey(), "POST", "https://x/mcp", tok, t0)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := v.Verify(ctx, dpopRequest(tok, p)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyHS256Exchanged verifies a token with an act chain of
// two, as a resource server down a token exchange does, without and with
// keeping the token for TokenOf.
func BenchmarkVerifyHS256Exchanged(b *testing.B) {
	c := claimsAt(t0)
	c["act"] = map[string]any{"sub": "rs-b", "act": map[string]any{"sub": "rs-a"}}
	tok := sign(b, jwt.SigningMethodHS256, testSecret, "", c)
	for _, keep := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "keep"}[keep], func(b *testing.B) {
			v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret,
				KeepToken: keep, Now: func() time.Time { return t0 }})
			if err != nil {
				b.Fatal(err)
			}
			benchVerify(b, v, bearer(tok))
		})
	}
}
