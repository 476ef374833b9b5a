package auth

import (
	"context"
	"net/http"
	"runtime"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// actChain nests acts with subs, current actor first.
func actChain(subs ...string) map[string]any {
	var act map[string]any
	for i := len(subs) - 1; i >= 0; i-- {
		level := map[string]any{"sub": subs[i]}
		if act != nil {
			level["act"] = act
		}
		act = level
	}
	return act
}

func TestActorsFromVerifiedToken(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	c := claimsAt(t0)
	c["act"] = actChain("server-b", "server-a")
	c["act"].(map[string]any)["iss"] = "https://as.example"
	id, err := v.Verify(context.Background(), bearer(sign(t, jwtES256, ecKey(), "ec", c)))
	if err != nil {
		t.Fatal(err)
	}
	got := Actors(id)
	if len(got) != 2 || got[0].Subject != "server-b" || got[0].Issuer != "https://as.example" || got[1].Subject != "server-a" {
		t.Fatalf("Actors = %+v", got)
	}
	if _, nested := got[0].Claims["act"]; nested {
		t.Fatalf("a level's Claims keep the nested act: %v", got[0].Claims)
	}
	if id.Subject != "alice" {
		t.Fatalf("Subject = %q: the person stays the subject", id.Subject)
	}

	plain, err := v.Verify(context.Background(), bearer(sign(t, jwtES256, ecKey(), "ec", claimsAt(t0))))
	if err != nil {
		t.Fatal(err)
	}
	if a := Actors(plain); a != nil {
		t.Fatalf("a token never exchanged has actors %v", a)
	}
	if Actors(nil) != nil || Actors(&sake.Identity{Claims: map[string]any{"act": "x"}}) != nil {
		t.Fatal("Actors of nil or of a malformed simulated identity is not nil")
	}
}

func TestActorChainRefused(t *testing.T) {
	t.Parallel()
	deep := make([]string, DefaultMaxActorDepth+1)
	for i := range deep {
		deep[i] = "rs"
	}
	for name, act := range map[string]any{
		"deeper than the default": actChain(deep...),
		"not an object":           "server-a",
		"null":                    nil,
		"no sub":                  map[string]any{"client_id": "server-a"},
		"empty sub":               map[string]any{"sub": ""},
		"sub not a string":        map[string]any{"sub": 7},
		"iss not a string":        map[string]any{"sub": "a", "iss": 7},
		"nested not an object":    map[string]any{"sub": "a", "act": []any{"b"}},
		"nested without sub":      map[string]any{"sub": "a", "act": map[string]any{}},
	} {
		t.Run(name, func(t *testing.T) {
			v := staticVerifier(t, nil)
			c := claimsAt(t0)
			c["act"] = act
			_, err := v.Verify(context.Background(), bearer(sign(t, jwtES256, ecKey(), "ec", c)))
			wantAuthError(t, err, http.StatusUnauthorized, "invalid_token")
		})
	}
	t.Run("at the bound", func(t *testing.T) {
		v := staticVerifier(t, nil)
		c := claimsAt(t0)
		c["act"] = actChain(deep[1:]...)
		if _, err := v.Verify(context.Background(), bearer(sign(t, jwtES256, ecKey(), "ec", c))); err != nil {
			t.Fatalf("a chain of DefaultMaxActorDepth: %v", err)
		}
	})
	t.Run("a bound of its own", func(t *testing.T) {
		v := staticVerifier(t, func(c *JWTConfig) { c.MaxActorDepth = 1 })
		c := claimsAt(t0)
		c["act"] = actChain("b", "a")
		_, err := v.Verify(context.Background(), bearer(sign(t, jwtES256, ecKey(), "ec", c)))
		wantAuthError(t, err, http.StatusUnauthorized, "invalid_token")
	})
	if _, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		HMACSecret: testSecret, MaxActorDepth: -1}); err == nil {
		t.Fatal("a negative MaxActorDepth is accepted")
	}
}

func TestTokenOfKeptOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	tok := sign(t, jwtES256, ecKey(), "ec", claimsAt(t0))
	off := staticVerifier(t, nil)
	id, err := off.Verify(context.Background(), bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if got := TokenOf(id); got != "" {
		t.Fatal("a verifier without KeepToken kept the token")
	}
	on := staticVerifier(t, func(c *JWTConfig) { c.KeepToken = true })
	id, err = on.Verify(context.Background(), bearer(tok))
	if err != nil {
		t.Fatal(err)
	}
	if TokenOf(id) != tok {
		t.Fatal("TokenOf does not give the verified token")
	}
	for k, v := range id.Claims {
		if s, ok := v.(string); ok && s == tok {
			t.Fatalf("the token is in the claims (%s)", k)
		}
	}
	if TokenOf(&sake.Identity{Subject: "alice"}) != "" || TokenOf(nil) != "" {
		t.Fatal("an identity no verifier made has a token")
	}
	// A refused token is not kept for anyone.
	bad := claimsAt(t0)
	bad["act"] = "x"
	if _, err := on.Verify(context.Background(), bearer(sign(t, jwtES256, ecKey(), "ec", bad))); err == nil {
		t.Fatal("malformed act accepted")
	}
	runtime.KeepAlive(id)
}

func TestTokenOfForgottenWithItsIdentity(t *testing.T) {
	// Not parallel: it counts the entries of the package's table.
	v := staticVerifier(t, func(c *JWTConfig) { c.KeepToken = true })
	tok := sign(t, jwtES256, ecKey(), "ec", claimsAt(t0))
	for range 100 {
		if _, err := v.Verify(context.Background(), bearer(tok)); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		n := 0
		kept.Range(func(any, any) bool { n++; return true })
		return n
	}
	// Collections run the cleanups; wait for them on the table itself.
	for i := 0; count() >= 100; i++ {
		if i == 1000 {
			t.Fatalf("%d kept tokens remain after their identities were dropped", count())
		}
		runtime.GC()
		runtime.Gosched()
	}
}

func TestIntrospectorActors(t *testing.T) {
	t.Parallel()
	srv := newIntrospectionServer(t)
	deep := make([]string, DefaultMaxActorDepth+1)
	for i := range deep {
		deep[i] = "rs"
	}
	srv.responses["exchanged"] = map[string]any{"active": true, "sub": "alice", "client_id": "rs-b",
		"act": actChain("rs-b", "rs-a")}
	srv.responses["deep"] = map[string]any{"active": true, "sub": "alice", "client_id": "rs", "act": actChain(deep...)}
	in := srv.introspector(newClock().Now)
	in.KeepToken = true
	id, err := in.Verify(context.Background(), bearer("exchanged"))
	if err != nil {
		t.Fatal(err)
	}
	if a := Actors(id); len(a) != 2 || a[0].Subject != "rs-b" || a[1].Subject != "rs-a" {
		t.Fatalf("Actors = %+v", a)
	}
	if TokenOf(id) != "exchanged" {
		t.Fatal("the introspected token was not kept")
	}
	_, err = in.Verify(context.Background(), bearer("deep"))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
}
