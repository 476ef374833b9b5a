package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// introspectionServer answers RFC 7662 requests from a table of tokens.
type introspectionServer struct {
	*httptest.Server
	hits      atomic.Int64
	mu        sync.Mutex
	responses map[string]map[string]any
	status    int
}

func newIntrospectionServer(t *testing.T) *introspectionServer {
	s := &introspectionServer{responses: map[string]map[string]any{}, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		id, secret, ok := r.BasicAuth()
		if r.Method != http.MethodPost || !ok || id != "rs%3A1" || secret != "s%26cret" ||
			r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, "bad request", http.StatusUnauthorized)
			return
		}
		if err := r.ParseForm(); err != nil || r.PostForm.Get("token_type_hint") != "access_token" {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.status != http.StatusOK {
			w.WriteHeader(s.status)
			return
		}
		resp, ok := s.responses[r.PostForm.Get("token")]
		if !ok {
			resp = map[string]any{"active": false}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *introspectionServer) introspector(now func() time.Time) *Introspector {
	return &Introspector{Endpoint: s.URL, ClientID: "rs:1", ClientSecret: "s&cret", Audience: []string{testResource},
		Issuer: testIssuer, Client: s.Client(), CacheTTL: 5 * time.Minute, Now: now}
}

func TestIntrospection(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newIntrospectionServer(t)
	active := map[string]any{"active": true, "sub": "alice", "client_id": "c1", "scope": "a b",
		"aud": []string{"https://other", testResource}, "iss": testIssuer, "exp": t0.Add(2 * time.Minute).Unix(),
		"acr": "mfa", "auth_time": t0.Add(-time.Hour).Unix()}
	srv.responses["active"] = active
	srv.responses["aud-string"] = map[string]any{"active": true, "sub": "bob", "aud": testResource}
	srv.responses["no-aud"] = map[string]any{"active": true, "sub": "carol"}
	srv.responses["wrong-aud"] = map[string]any{"active": true, "sub": "x", "aud": "https://other"}
	srv.responses["wrong-iss"] = map[string]any{"active": true, "sub": "x", "iss": "https://evil"}
	srv.responses["expired"] = map[string]any{"active": true, "sub": "x", "exp": t0.Add(-time.Hour).Unix()}
	srv.responses["not-yet"] = map[string]any{"active": true, "sub": "x", "nbf": t0.Add(time.Hour).Unix()}
	srv.responses["active-string"] = map[string]any{"active": "true", "sub": "x"}
	in := srv.introspector(clk.Now)
	ctx := context.Background()

	id, err := in.Verify(ctx, bearer("active"))
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "alice" || id.ClientID != "c1" || !slices.Equal(id.Scopes, []string{"a", "b"}) || id.ACR != "mfa" ||
		!id.AuthTime.Equal(t0.Add(-time.Hour)) {
		t.Fatalf("identity %+v", id)
	}
	for _, tok := range []string{"aud-string", "no-aud"} {
		if _, err := in.Verify(ctx, bearer(tok)); err != nil {
			t.Fatalf("%s: %v", tok, err)
		}
	}
	for _, tok := range []string{"inactive", "wrong-aud", "wrong-iss", "expired", "not-yet", "active-string"} {
		_, err := in.Verify(ctx, bearer(tok))
		wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
	}
	_, err = in.Verify(ctx, nil)
	wantAuthError(t, err, http.StatusUnauthorized, "")
}

func TestIntrospectionCache(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newIntrospectionServer(t)
	srv.responses["short"] = map[string]any{"active": true, "sub": "alice", "exp": t0.Add(2 * time.Minute).Unix()}
	srv.responses["long"] = map[string]any{"active": true, "sub": "bob", "exp": t0.Add(time.Hour).Unix()}
	in := srv.introspector(clk.Now)
	ctx := context.Background()
	verify := func(tok string) error {
		_, err := in.Verify(ctx, bearer(tok))
		return err
	}
	for range 3 {
		if err := verify("short"); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("introspected %d times, want 1 (cached)", n)
	}
	// Identities are fresh copies: changing one does not change the cache.
	id, _ := in.Verify(ctx, bearer("short"))
	id.Claims["sub"] = "mallory"
	if id2, _ := in.Verify(ctx, bearer("short")); id2.Subject != "alice" || id2.Claims["sub"] != "alice" {
		t.Fatal("cached claims were modified through an identity")
	}

	// Inactive answers are not cached.
	for range 2 {
		_, err := in.Verify(ctx, bearer("revoked"))
		wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
	}
	if n := srv.hits.Load(); n != 3 {
		t.Fatalf("introspected %d times, want 3", n)
	}

	// The cache entry ends at exp, before CacheTTL; the token is then
	// asked about again (and, being past exp, refused).
	if err := verify("long"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(3 * time.Minute) // past exp and the clock skew
	before := srv.hits.Load()
	if err := verify("short"); err == nil {
		t.Fatal("expired token accepted from the cache")
	}
	if srv.hits.Load() != before+1 {
		t.Fatal("expired cache entry not re-introspected")
	}
	// "long" is still cached within CacheTTL...
	before = srv.hits.Load()
	if err := verify("long"); err != nil || srv.hits.Load() != before {
		t.Fatalf("err %v, hits %d→%d", err, before, srv.hits.Load())
	}
	// ...and introspected again after it.
	clk.Advance(5 * time.Minute)
	if err := verify("long"); err != nil || srv.hits.Load() != before+1 {
		t.Fatalf("err %v, hits %d→%d", err, before, srv.hits.Load())
	}

	// CacheTTL zero disables the cache.
	nocache := srv.introspector(clk.Now)
	nocache.CacheTTL = 0
	before = srv.hits.Load()
	for range 2 {
		if _, err := nocache.Verify(ctx, bearer("long")); err != nil {
			t.Fatal(err)
		}
	}
	if srv.hits.Load() != before+2 {
		t.Fatal("cached with CacheTTL 0")
	}
}

func TestIntrospectionUnavailable(t *testing.T) {
	t.Parallel()
	srv := newIntrospectionServer(t)
	srv.status = http.StatusInternalServerError
	_, err := srv.introspector(newClock().Now).Verify(context.Background(), bearer("t"))
	if err == nil || AsError(err) != nil {
		t.Fatalf("err = %v, want a plain error", err)
	}
	in := &Introspector{Endpoint: "http://127.0.0.1:1/introspect", Client: srv.Client()}
	if _, err := in.Verify(context.Background(), bearer("t")); err == nil || AsError(err) != nil {
		t.Fatalf("err = %v, want a plain error", err)
	}
}

func TestIntrospectionDPoPBinding(t *testing.T) {
	t.Parallel()
	srv := newIntrospectionServer(t)
	srv.responses["bound"] = map[string]any{"active": true, "sub": "alice",
		"cnf": map[string]any{"jkt": thumb(t, ecKey().Public())}}
	in := srv.introspector(func() time.Time { return t0 })
	ctx := context.Background()
	_, err := in.Verify(ctx, bearer("bound"))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
	p := makeProof(t, ecKey(), jwtES256, "bound", nil)
	if _, err := in.Verify(ctx, dpopRequest("bound", p)); err != nil {
		t.Fatal(err)
	}
	// Replays are caught even though the token's answer is cached.
	_, err = in.Verify(ctx, dpopRequest("bound", p))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidDPoPProof)
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("introspected %d times", n)
	}
	if !errors.Is(err, &Error{Code: CodeInvalidDPoPProof}) {
		t.Fatal("errors.Is by code")
	}
}
