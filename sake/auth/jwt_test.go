package auth

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// staticVerifier verifies RS256 ("rsa"), ES256 ("ec") and EdDSA ("ed")
// tokens with static keys at t0.
func staticVerifier(t *testing.T, mod func(*JWTConfig)) *JWTVerifier {
	t.Helper()
	cfg := JWTConfig{
		Issuer:   testIssuer,
		Audience: []string{testResource},
		Keys: StaticKeys(map[string]any{
			"rsa": &rsaKey().PublicKey, "ec": &ecKey().PublicKey, "ed": edKey().Public(),
			"ec384": &ecKey384().PublicKey,
		}),
		Now: func() time.Time { return t0 },
	}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewJWTVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func bearer(token string) *TokenRequest { return &TokenRequest{Token: token, Scheme: "Bearer"} }

func TestJWTPositiveViaJWKS(t *testing.T) {
	t.Parallel()
	srv := newJWKSServer(t,
		jwkDoc(t, &rsaKey().PublicKey, "r1", "RS256", "sig"),
		jwkDoc(t, &ecKey().PublicKey, "e1", "", ""),
		jwkDoc(t, edKey().Public(), "d1", "EdDSA", "sig"),
	)
	v, err := NewJWTVerifier(JWTConfig{
		Issuer: testIssuer, Audience: []string{"https://other", testResource},
		Keys: NewJWKS(srv.URL, srv.Client()), Now: func() time.Time { return t0 },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("algs", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			m    jwt.SigningMethod
			key  any
			kid  string
		}{
			{"RS256", jwt.SigningMethodRS256, rsaKey(), "r1"},
			{"ES256", jwt.SigningMethodES256, ecKey(), "e1"},
			{"EdDSA", jwt.SigningMethodEdDSA, edKey(), "d1"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				id, err := v.Verify(context.Background(), bearer(sign(t, tc.m, tc.key, tc.kid, claimsAt(t0))))
				if err != nil {
					t.Fatal(err)
				}
				if id.Subject != "alice" || id.ClientID != "client-1" ||
					!slices.Equal(id.Scopes, []string{"notes:read", "notes:write"}) || id.Claims["iss"] != testIssuer {
					t.Fatalf("identity = %+v", id)
				}
			})
		}
	})
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("JWKS fetched %d times, want 1", n)
	}
}

func TestJWTPositiveHS256ViaIssuer(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return t0 }
	iss := &Issuer{Issuer: testIssuer, Secret: testSecret, Audience: testResource, TTL: time.Minute, Now: now}
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	authTime := t0.Add(-time.Hour)
	tok, err := iss.Issue("bob", "cli", []string{"a", "b"}, "urn:mfa", authTime, "")
	if err != nil {
		t.Fatal(err)
	}
	id, err := v.Verify(context.Background(), bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "bob" || id.ClientID != "cli" || !slices.Equal(id.Scopes, []string{"a", "b"}) ||
		id.ACR != "urn:mfa" || !id.AuthTime.Equal(authTime) {
		t.Fatalf("identity = %+v", id)
	}
	// A client-credentials token: no subject, the client is the owner.
	tok, _ = iss.Issue("", "machine", nil, "", time.Time{}, "")
	id, err = v.Verify(context.Background(), bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "" || id.Owner() != "client:machine" || id.Scopes != nil || !id.AuthTime.IsZero() {
		t.Fatalf("identity = %+v", id)
	}
	// Once expired, the verifier refuses it.
	late, _ := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret,
		Now: func() time.Time { return t0.Add(time.Minute + DefaultClockSkew) }})
	_, err = late.Verify(context.Background(), bearer(tok))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
}

func TestJWTScopesAndClaims(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	for _, tc := range []struct {
		name   string
		set    map[string]any
		drop   []string
		scopes []string
		client string
	}{
		{"scope string", map[string]any{"scope": " a  b "}, nil, []string{"a", "b"}, "client-1"},
		{"scp array", map[string]any{"scp": []string{"x", "y"}}, []string{"scope"}, []string{"x", "y"}, "client-1"},
		{"scp string", map[string]any{"scp": "x y"}, []string{"scope"}, []string{"x", "y"}, "client-1"},
		{"scope wins over scp", map[string]any{"scope": "a", "scp": []string{"x"}}, nil, []string{"a"}, "client-1"},
		{"azp", map[string]any{"azp": "az"}, []string{"client_id"}, []string{"notes:read", "notes:write"}, "az"},
		{"cid", map[string]any{"cid": "c"}, []string{"client_id"}, []string{"notes:read", "notes:write"}, "c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := claimsAt(t0)
			for _, k := range tc.drop {
				delete(c, k)
			}
			for k, val := range tc.set {
				c[k] = val
			}
			id, err := v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(id.Scopes, tc.scopes) || id.ClientID != tc.client {
				t.Fatalf("scopes %q client %q, want %q %q", id.Scopes, id.ClientID, tc.scopes, tc.client)
			}
		})
	}
	t.Run("acr and auth_time", func(t *testing.T) {
		t.Parallel()
		c := claimsAt(t0)
		c["acr"] = "phr"
		c["auth_time"] = 1767225600.5
		id, err := v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodES256, ecKey(), "ec", c)))
		if err != nil {
			t.Fatal(err)
		}
		if id.ACR != "phr" || !id.AuthTime.Equal(time.Unix(1767225600, 5e8)) {
			t.Fatalf("acr %q auth_time %v", id.ACR, id.AuthTime)
		}
	})
}

func TestJWTNoToken(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	for _, r := range []*TokenRequest{nil, {}, {Scheme: "Bearer"}} {
		_, err := v.Verify(context.Background(), r)
		if e := wantAuthError(t, err, http.StatusUnauthorized, ""); e.DPoP {
			t.Fatal("DPoP challenge for a Bearer verifier")
		}
	}
	_, err := staticVerifier(t, func(c *JWTConfig) { c.RequireDPoP = true }).Verify(context.Background(), nil)
	if e := wantAuthError(t, err, http.StatusUnauthorized, ""); !e.DPoP {
		t.Fatal("RequireDPoP verifier should challenge with DPoP")
	}
}

func TestJWTNegative(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	withSecret := staticVerifier(t, func(c *JWTConfig) { c.HMACSecret = testSecret })
	pubDER, err := x509.MarshalPKIXPublicKey(&rsaKey().PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	rs := func(mod func(jwt.MapClaims)) string {
		c := claimsAt(t0)
		mod(c)
		return sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c)
	}
	valid := rs(func(jwt.MapClaims) {})
	none := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, claimsAt(t0))
		tok.Header["kid"] = "rsa"
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}()
	withTyp := func(typ string) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claimsAt(t0))
		tok.Header["kid"], tok.Header["typ"] = "rsa", typ
		s, _ := tok.SignedString(rsaKey())
		return s
	}
	for _, tc := range []struct {
		name  string
		v     *JWTVerifier
		token string
	}{
		{"malformed", v, "not-a-jwt"},
		{"malformed segments", v, "a.b.c"},
		{"garbage payload", v, strings.Join(strings.Split(valid, ".")[:1], ".") + ".e30x.sig"},
		{"expired", v, rs(func(c jwt.MapClaims) { c["exp"] = t0.Add(-time.Minute).Unix() })},
		{"no exp", v, rs(func(c jwt.MapClaims) { delete(c, "exp") })},
		{"not yet valid", v, rs(func(c jwt.MapClaims) { c["nbf"] = t0.Add(time.Minute).Unix() })},
		{"issued in the future", v, rs(func(c jwt.MapClaims) { c["iat"] = t0.Add(time.Minute).Unix() })},
		{"wrong issuer", v, rs(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" })},
		{"no issuer", v, rs(func(c jwt.MapClaims) { delete(c, "iss") })},
		{"wrong audience", v, rs(func(c jwt.MapClaims) { c["aud"] = []string{"https://x/other"} })},
		{"audience trailing slash", v, rs(func(c jwt.MapClaims) { c["aud"] = testResource + "/" })},
		{"no audience", v, rs(func(c jwt.MapClaims) { delete(c, "aud") })},
		{"bad signature", v, valid[:len(valid)-4] + "AAAA"},
		{"signed by another key", v, sign(t, jwt.SigningMethodRS256, rsaKey2(), "rsa", claimsAt(t0))},
		{"alg none", v, none},
		{"HS256 with RSA public key as secret", v, sign(t, jwt.SigningMethodHS256, pubPEM, "rsa", claimsAt(t0))},
		{"HS256 with RSA public key DER as secret", v, sign(t, jwt.SigningMethodHS256, pubDER, "rsa", claimsAt(t0))},
		{"HS256 with RSA public key, secret configured", withSecret, sign(t, jwt.SigningMethodHS256, pubPEM, "rsa", claimsAt(t0))},
		{"RS256 with kid of an EC key", v, sign(t, jwt.SigningMethodRS256, rsaKey(), "ec", claimsAt(t0))},
		{"ES256 with kid of a P-384 key", v, sign(t, jwt.SigningMethodES256, ecKey(), "ec384", claimsAt(t0))},
		{"ES384 not allowed", v, sign(t, jwt.SigningMethodES384, ecKey384(), "ec384", claimsAt(t0))},
		{"PS256 not allowed", v, sign(t, jwt.SigningMethodPS256, rsaKey(), "rsa", claimsAt(t0))},
		{"unknown kid", v, sign(t, jwt.SigningMethodRS256, rsaKey(), "nope", claimsAt(t0))},
		{"no kid among several keys", v, sign(t, jwt.SigningMethodRS256, rsaKey(), "", claimsAt(t0))},
		{"DPoP proof as access token", v, withTyp("dpop+jwt")},
		{"security event token", v, withTyp("secevent+jwt")},
		{"ID token type", v, withTyp("id_token+jwt")},
		{"typ not a string", v, func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claimsAt(t0))
			tok.Header["kid"], tok.Header["typ"] = "rsa", 7
			s, _ := tok.SignedString(rsaKey())
			return s
		}()},
		{"no sub and no client id", v, rs(func(c jwt.MapClaims) { delete(c, "sub"); delete(c, "client_id") })},
		{"empty sub and no client id", v, rs(func(c jwt.MapClaims) { c["sub"] = ""; delete(c, "client_id") })},
		{"numeric sub", v, rs(func(c jwt.MapClaims) { c["sub"] = 42 })},
		{"numeric client id", v, rs(func(c jwt.MapClaims) { delete(c, "sub"); c["client_id"] = 42 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id, err := tc.v.Verify(context.Background(), bearer(tc.token))
			if id != nil {
				t.Fatalf("identity %+v for a bad token", id)
			}
			e := wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
			if e.Unwrap() == nil {
				t.Fatal("no internal cause kept")
			}
			if strings.Contains(e.Error(), "expired") || strings.Contains(e.Challenge("Bearer", ""), "expired") {
				t.Fatal("the reason leaked into the client-facing text")
			}
		})
	}
	// The access token types of RFC 9068, plain JWT, and no typ are fine.
	for _, typ := range []string{"at+jwt", "application/at+jwt", "AT+JWT", "JWT", "jwt"} {
		if _, err := v.Verify(context.Background(), bearer(withTyp(typ))); err != nil {
			t.Errorf("typ %q: %v", typ, err)
		}
	}
	noTyp := jwt.NewWithClaims(jwt.SigningMethodRS256, claimsAt(t0))
	noTyp.Header["kid"] = "rsa"
	delete(noTyp.Header, "typ")
	if s, _ := noTyp.SignedString(rsaKey()); s == "" {
		t.Fatal("signing")
	} else if _, err := v.Verify(context.Background(), bearer(s)); err != nil {
		t.Errorf("no typ: %v", err)
	}
	// A machine client's token (no sub) owns what its client id owns.
	id, err := v.Verify(context.Background(), bearer(rs(func(c jwt.MapClaims) { delete(c, "sub") })))
	if err != nil || id.Owner() != "client:client-1" {
		t.Errorf("client credentials token: %v, owner %q", err, id.Owner())
	}
}

func TestJWTClockSkew(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	for _, tc := range []struct {
		name string
		mod  func(jwt.MapClaims)
		ok   bool
	}{
		{"expired within skew", func(c jwt.MapClaims) { c["exp"] = t0.Add(-20 * time.Second).Unix() }, true},
		{"expired beyond skew", func(c jwt.MapClaims) { c["exp"] = t0.Add(-40 * time.Second).Unix() }, false},
		{"nbf within skew", func(c jwt.MapClaims) { c["nbf"] = t0.Add(20 * time.Second).Unix() }, true},
		{"nbf beyond skew", func(c jwt.MapClaims) { c["nbf"] = t0.Add(40 * time.Second).Unix() }, false},
		{"iat within skew", func(c jwt.MapClaims) { c["iat"] = t0.Add(20 * time.Second).Unix() }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := claimsAt(t0)
			tc.mod(c)
			_, err := v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c)))
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestJWTSingleStaticKeyWithoutKid(t *testing.T) {
	t.Parallel()
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		Keys: StaticKeys(map[string]any{"only": rsaKey()}), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "", claimsAt(t0)))); err != nil {
		t.Fatal(err)
	}
}

func TestNewJWTVerifierRefusesBadConfig(t *testing.T) {
	t.Parallel()
	keys := StaticKeys(map[string]any{"rsa": &rsaKey().PublicKey})
	for _, tc := range []struct {
		name string
		cfg  JWTConfig
	}{
		{"no issuer", JWTConfig{Audience: []string{testResource}, Keys: keys}},
		{"no audience", JWTConfig{Issuer: testIssuer, Keys: keys}},
		{"empty audience", JWTConfig{Issuer: testIssuer, Audience: []string{""}, Keys: keys}},
		{"no keys", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}}},
		{"alg none", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, Keys: keys, Algorithms: []string{"none"}}},
		{"HS384", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, Keys: keys, Algorithms: []string{"HS384"}}},
		{"HS256 without secret", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, Keys: keys, Algorithms: []string{"HS256"}}},
		{"RS256 without keys", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret, Algorithms: []string{"RS256"}}},
		{"short secret", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: []byte("short")}},
		{"negative skew", JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, Keys: keys, ClockSkew: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := NewJWTVerifier(tc.cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestJWTPrincipal(t *testing.T) {
	t.Parallel()
	type user struct{ name string }
	denied := &Error{Status: http.StatusForbidden, Code: CodeInsufficientScope}
	boom := errors.New("database down")
	v := staticVerifier(t, func(c *JWTConfig) {
		c.Principal = func(_ context.Context, id *protocol.Identity) (any, error) {
			switch id.Subject {
			case "alice":
				return &user{"Alice"}, nil
			case "mallory":
				return nil, denied
			}
			return nil, boom
		}
	})
	tok := func(sub string) *TokenRequest {
		c := claimsAt(t0)
		c["sub"] = sub
		return bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c))
	}
	id, err := v.Verify(context.Background(), tok("alice"))
	if err != nil || id.Principal.(*user).name != "Alice" {
		t.Fatalf("id %+v err %v", id, err)
	}
	if _, err := v.Verify(context.Background(), tok("mallory")); err != denied {
		t.Fatalf("err = %v, want the hook's *Error", err)
	}
	_, err = v.Verify(context.Background(), tok("eve"))
	if !errors.Is(err, boom) || AsError(err) != nil {
		t.Fatalf("err = %v, want a plain error wrapping the cause", err)
	}
}

func TestJWTKeySourceUnavailable(t *testing.T) {
	t.Parallel()
	srv := newJWKSServer(t)
	srv.set(http.StatusInternalServerError)
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		Keys: NewJWKS(srv.URL, srv.Client()), Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claimsAt(t0))))
	if err == nil || AsError(err) != nil {
		t.Fatalf("err = %v, want a plain (unavailable) error", err)
	}
}

func TestJWTUnsupportedScheme(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	_, err := v.Verify(context.Background(), &TokenRequest{Token: "x", Scheme: "Basic"})
	wantAuthError(t, err, http.StatusBadRequest, CodeInvalidRequest)
}
