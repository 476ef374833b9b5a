package auth

import (
	"context"
	"crypto"
	"encoding/base64"
	"math/big"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var endpoint = mustURL("https://x/mcp")

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// makeProof signs a DPoP proof for POST https://x/mcp at t0 with key; mod
// may alter the header and claims before signing.
func makeProof(t testing.TB, key crypto.Signer, m jwt.SigningMethod, token string, mod func(h map[string]any, c jwt.MapClaims)) string {
	t.Helper()
	c := jwt.MapClaims{"jti": randomID(), "htm": "POST", "htu": "https://x/mcp", "iat": t0.Unix()}
	if token != "" {
		c["ath"] = tokenHash(token)
	}
	tok := jwt.NewWithClaims(m, c)
	tok.Header["typ"] = "dpop+jwt"
	tok.Header["jwk"] = jwkDoc(t, key.Public(), "", "", "")
	if mod != nil {
		mod(tok.Header, c)
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func thumb(t testing.TB, pub crypto.PublicKey) string {
	t.Helper()
	jkt, err := Thumbprint(pub)
	if err != nil {
		t.Fatal(err)
	}
	return jkt
}

type dpopFixture struct {
	v   *JWTVerifier
	iss *Issuer
}

func newDPoPFixture(t *testing.T, mod func(*JWTConfig)) *dpopFixture {
	t.Helper()
	now := func() time.Time { return t0 }
	cfg := JWTConfig{Issuer: testIssuer, Audience: []string{testResource}, HMACSecret: testSecret, Now: now}
	if mod != nil {
		mod(&cfg)
	}
	v, err := NewJWTVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &dpopFixture{v: v, iss: &Issuer{Issuer: testIssuer, Secret: testSecret, Audience: testResource, Now: now}}
}

func (f *dpopFixture) token(t *testing.T, jkt string) string {
	t.Helper()
	tok, err := f.iss.Issue("alice", "c", []string{"s"}, "", time.Time{}, jkt)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func dpopRequest(token, proof string) *TokenRequest {
	return &TokenRequest{Token: token, Scheme: "DPoP", DPoPProof: proof, Method: "POST", URL: endpoint}
}

func TestDPoPBoundTokenAccepted(t *testing.T) {
	t.Parallel()
	f := newDPoPFixture(t, nil)
	for _, tc := range []struct {
		name string
		key  crypto.Signer
		m    jwt.SigningMethod
	}{
		{"ES256", ecKey(), jwt.SigningMethodES256},
		{"RS256", rsaKey(), jwt.SigningMethodRS256},
		{"EdDSA", edKey(), jwt.SigningMethodEdDSA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tok := f.token(t, thumb(t, tc.key.Public()))
			id, err := f.v.Verify(context.Background(), dpopRequest(tok, makeProof(t, tc.key, tc.m, tok, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if id.Subject != "alice" {
				t.Fatalf("identity %+v", id)
			}
		})
	}
	t.Run("NewDPoPProof", func(t *testing.T) {
		t.Parallel()
		tok := f.token(t, thumb(t, ecKey().Public()))
		p, err := NewDPoPProof(ecKey(), "POST", "https://x/mcp?session=1#frag", tok, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.v.Verify(context.Background(), dpopRequest(tok, p)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("scheme is case-insensitive", func(t *testing.T) {
		t.Parallel()
		tok := f.token(t, thumb(t, ecKey().Public()))
		r := dpopRequest(tok, makeProof(t, ecKey(), jwt.SigningMethodES256, tok, nil))
		r.Scheme = "dpop"
		if _, err := f.v.Verify(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDPoPNegative(t *testing.T) {
	t.Parallel()
	f := newDPoPFixture(t, nil)
	strict := newDPoPFixture(t, func(c *JWTConfig) { c.RequireDPoP = true })
	jkt := thumb(t, ecKey().Public())
	bound := f.token(t, jkt)
	unbound := f.token(t, "")
	es := func(mod func(h map[string]any, c jwt.MapClaims)) string {
		return makeProof(t, ecKey(), jwt.SigningMethodES256, bound, mod)
	}
	withD := jwkDoc(t, ecKey().Public(), "", "", "")
	raw, err := ecKey().Bytes()
	if err != nil {
		t.Fatal(err)
	}
	withD["d"] = enc(raw)
	hsProof := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"jti": "j", "htm": "POST",
			"htu": "https://x/mcp", "iat": t0.Unix(), "ath": tokenHash(bound)})
		tok.Header["typ"] = "dpop+jwt"
		tok.Header["jwk"] = map[string]any{"kty": "oct", "k": enc(testSecret)}
		s, _ := tok.SignedString(testSecret)
		return s
	}()
	for _, tc := range []struct {
		name string
		v    *JWTVerifier
		r    *TokenRequest
		code string
	}{
		{"proof for another URL", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["htu"] = "https://x/other" })), CodeInvalidDPoPProof},
		{"proof for another host", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["htu"] = "https://evil/mcp" })), CodeInvalidDPoPProof},
		{"proof for http", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["htu"] = "http://x/mcp" })), CodeInvalidDPoPProof},
		{"proof for another method", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["htm"] = "GET" })), CodeInvalidDPoPProof},
		{"iat too old", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["iat"] = t0.Add(-61 * time.Second).Unix() })), CodeInvalidDPoPProof},
		{"iat in the future", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["iat"] = t0.Add(61 * time.Second).Unix() })), CodeInvalidDPoPProof},
		{"no iat", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { delete(c, "iat") })), CodeInvalidDPoPProof},
		{"no jti", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { delete(c, "jti") })), CodeInvalidDPoPProof},
		{"no ath", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { delete(c, "ath") })), CodeInvalidDPoPProof},
		{"wrong ath", f.v, dpopRequest(bound, es(func(_ map[string]any, c jwt.MapClaims) { c["ath"] = tokenHash("other") })), CodeInvalidDPoPProof},
		{"wrong typ", f.v, dpopRequest(bound, es(func(h map[string]any, _ jwt.MapClaims) { h["typ"] = "JWT" })), CodeInvalidDPoPProof},
		{"no jwk", f.v, dpopRequest(bound, es(func(h map[string]any, _ jwt.MapClaims) { delete(h, "jwk") })), CodeInvalidDPoPProof},
		{"jwk with private key", f.v, dpopRequest(bound, es(func(h map[string]any, _ jwt.MapClaims) { h["jwk"] = withD })), CodeInvalidDPoPProof},
		{"jwk of another key than the signer", f.v, dpopRequest(bound, es(func(h map[string]any, _ jwt.MapClaims) {
			h["jwk"] = jwkDoc(t, ecKey2().Public(), "", "", "")
		})), CodeInvalidDPoPProof},
		{"symmetric proof", f.v, dpopRequest(bound, hsProof), CodeInvalidDPoPProof},
		{"tampered signature", f.v, dpopRequest(bound, es(nil)[:len(es(nil))-6]+"AAAAAA"), CodeInvalidDPoPProof},
		{"missing proof", f.v, dpopRequest(bound, ""), CodeInvalidDPoPProof},
		{"no request URL", f.v, &TokenRequest{Token: bound, Scheme: "DPoP", DPoPProof: es(nil), Method: "POST"}, CodeInvalidDPoPProof},
		{"token bound to another key", f.v, dpopRequest(bound, makeProof(t, ecKey2(), jwt.SigningMethodES256, bound, nil)), CodeInvalidToken},
		{"Bearer with a DPoP-bound token", f.v, bearer(bound), CodeInvalidToken},
		{"Bearer with a DPoP-bound token and a proof", f.v, &TokenRequest{Token: bound, Scheme: "Bearer", DPoPProof: es(nil), Method: "POST", URL: endpoint}, CodeInvalidToken},
		{"DPoP scheme with an unbound token", f.v, dpopRequest(unbound, makeProof(t, ecKey(), jwt.SigningMethodES256, unbound, nil)), CodeInvalidToken},
		{"RequireDPoP refuses Bearer", strict.v, bearer(unbound), CodeInvalidToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.v.Verify(context.Background(), tc.r)
			if e := wantAuthError(t, err, http.StatusUnauthorized, tc.code); !e.DPoP {
				t.Fatal("error does not ask for a DPoP challenge")
			}
		})
	}
}

func TestDPoPReplayedJTI(t *testing.T) {
	t.Parallel()
	f := newDPoPFixture(t, nil)
	tok := f.token(t, thumb(t, ecKey().Public()))
	p := makeProof(t, ecKey(), jwt.SigningMethodES256, tok, nil)
	if _, err := f.v.Verify(context.Background(), dpopRequest(tok, p)); err != nil {
		t.Fatal(err)
	}
	_, err := f.v.Verify(context.Background(), dpopRequest(tok, p))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidDPoPProof)
	// A fresh proof (new jti) is fine.
	if _, err := f.v.Verify(context.Background(), dpopRequest(tok, makeProof(t, ecKey(), jwt.SigningMethodES256, tok, nil))); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyDPoPProof(t *testing.T) {
	t.Parallel()
	want := thumb(t, ecKey().Public())
	for _, tc := range []struct {
		name, htu, reqURL string
		ok                bool
	}{
		{"exact", "https://x/mcp", "https://x/mcp", true},
		{"request query ignored", "https://x/mcp", "https://x/mcp?a=1#f", true},
		{"proof query ignored", "https://x/mcp?b=2", "https://x/mcp", true},
		{"scheme and host case", "HTTPS://X/mcp", "https://x/mcp", true},
		{"default port", "https://x:443/mcp", "https://x/mcp", true},
		{"empty path", "https://x", "https://x/", true},
		{"path case matters", "https://x/MCP", "https://x/mcp", false},
		{"other port", "https://x:8443/mcp", "https://x/mcp", false},
		{"relative htu", "/mcp", "https://x/mcp", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := makeProof(t, ecKey(), jwt.SigningMethodES256, "", func(_ map[string]any, c jwt.MapClaims) { c["htu"] = tc.htu })
			jkt, err := VerifyDPoPProof(p, "POST", mustURL(tc.reqURL), "", t0, 0, nil)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && jkt != want {
				t.Fatalf("jkt = %q, want %q", jkt, want)
			}
		})
	}
	t.Run("window", func(t *testing.T) {
		t.Parallel()
		p := makeProof(t, ecKey(), jwt.SigningMethodES256, "", nil)
		if _, err := VerifyDPoPProof(p, "POST", endpoint, "", t0.Add(4*time.Minute), 5*time.Minute, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := VerifyDPoPProof(p, "POST", endpoint, "", t0.Add(6*time.Minute), 5*time.Minute, nil); err == nil {
			t.Fatal("stale proof accepted")
		}
	})
	t.Run("replay cache", func(t *testing.T) {
		t.Parallel()
		clk := newClock()
		rc := newReplayCache(clk.Now, 10)
		p := makeProof(t, ecKey(), jwt.SigningMethodES256, "", nil)
		if _, err := VerifyDPoPProof(p, "POST", endpoint, "", t0, time.Minute, rc); err != nil {
			t.Fatal(err)
		}
		_, err := VerifyDPoPProof(p, "POST", endpoint, "", t0, time.Minute, rc)
		wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidDPoPProof)
	})
}

// RFC 7638 §3.1 example.
func TestThumbprintRFC7638(t *testing.T) {
	t.Parallel()
	k := jwk{Kty: "RSA", E: "AQAB",
		N: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}
	pub, err := k.publicKey()
	if err != nil {
		t.Fatal(err)
	}
	const want = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
	if got := thumb(t, pub); got != want {
		t.Fatalf("thumbprint %s, want %s", got, want)
	}
	if got := k.thumbprint(); got != want {
		t.Fatalf("member thumbprint %s, want %s", got, want)
	}
}

func TestJWKRejectsNonCanonical(t *testing.T) {
	t.Parallel()
	good, _ := publicJWK(&rsaKey().PublicKey)
	n, _ := base64.RawURLEncoding.DecodeString(good.N)
	for _, k := range []jwk{
		{Kty: "RSA", N: enc(append([]byte{0}, n...)), E: "AQAB"},                      // leading zero
		{Kty: "RSA", N: good.N, E: enc(big.NewInt(65536).Bytes())},                    // even exponent
		{Kty: "RSA", N: good.N, E: "AQAB="},                                           // padding
		{Kty: "EC", Crv: "P-256", X: enc(make([]byte, 32)), Y: enc(make([]byte, 32))}, // not on curve
		{Kty: "OKP", Crv: "Ed25519", X: enc(make([]byte, 31))},
	} {
		if _, err := k.publicKey(); err == nil {
			t.Errorf("accepted %+v", k)
		}
	}
}

func TestReplayCache(t *testing.T) {
	t.Parallel()
	clk := newClock()
	c := newReplayCache(clk.Now, 3)
	until := t0.Add(time.Minute)
	if c.Seen("a", until) || c.Seen("b", until) {
		t.Fatal("fresh ids reported seen")
	}
	if !c.Seen("a", until) {
		t.Fatal("replay not detected")
	}
	clk.Advance(time.Minute)
	if c.Seen("a", t0.Add(2*time.Minute)) {
		t.Fatal("expired id still remembered")
	}
	// Bounded: the oldest live entry gives way.
	later := t0.Add(10 * time.Minute)
	for _, k := range []string{"c", "d", "e", "f"} {
		c.Seen(k, later)
	}
	if len(c.seen) > 3 {
		t.Fatalf("cache holds %d entries, bound 3", len(c.seen))
	}
	if !c.Seen("f", later) {
		t.Fatal("newest entry evicted")
	}
	// The exported constructor works with the wall clock.
	rc := NewReplayCache()
	if rc.Seen("x", time.Now().Add(time.Minute)) || !rc.Seen("x", time.Now().Add(time.Minute)) {
		t.Fatal("NewReplayCache does not remember")
	}
}
