package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestJWKSUnknownKidRefetchIsRateLimited(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newJWKSServer(t, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""))
	j := NewJWKS(srv.URL, srv.Client(), Clock(clk.Now), MinRefresh(time.Minute))
	ctx := context.Background()

	if _, err := j.Key(ctx, "k1", "RS256"); err != nil {
		t.Fatal(err)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("initial fetches = %d", n)
	}
	// Right after the initial fetch, an unknown kid does not refetch.
	if _, err := j.Key(ctx, "u0", "RS256"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (within MinRefresh)", n)
	}

	clk.Advance(2 * time.Minute)
	// The first unknown kid after MinRefresh refetches once...
	if _, err := j.Key(ctx, "u1", "RS256"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2", n)
	}
	// ...and a second unknown kid within MinRefresh does not.
	clk.Advance(30 * time.Second)
	if _, err := j.Key(ctx, "u2", "RS256"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2 (rate limited)", n)
	}

	// A rotated-in key is found by the next allowed refetch.
	srv.set(http.StatusOK, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""), jwkDoc(t, &rsaKey2().PublicKey, "k2", "", ""))
	clk.Advance(time.Minute)
	k, err := j.Key(ctx, "k2", "RS256")
	if err != nil || !rsaKey2().PublicKey.Equal(k) {
		t.Fatalf("key %v err %v", k, err)
	}
	if n := srv.hits.Load(); n != 3 {
		t.Fatalf("fetches = %d, want 3", n)
	}
	// Known kids never refetch while the set is fresh.
	for range 10 {
		if _, err := j.Key(ctx, "k1", "RS256"); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.hits.Load(); n != 3 {
		t.Fatalf("fetches = %d, want 3", n)
	}
}

func TestJWKSUnknownKidThroughVerifier(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newJWKSServer(t, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""))
	v, err := NewJWTVerifier(JWTConfig{Issuer: testIssuer, Audience: []string{testResource},
		Keys: NewJWKS(srv.URL, srv.Client(), Clock(clk.Now)), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ok := sign(t, jwtRS256, rsaKey(), "k1", claimsAt(t0))
	if _, err := v.Verify(ctx, bearer(ok)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(DefaultJWKSMinRefresh)
	for _, kid := range []string{"x1", "x2", "x3"} {
		_, err := v.Verify(ctx, bearer(sign(t, jwtRS256, rsaKey(), kid, claimsAt(t0))))
		wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2: one initial, one for the first unknown kid", n)
	}
}

func TestJWKSCacheControl(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newJWKSServer(t, jwkDoc(t, &ecKey().PublicKey, "e", "", ""))
	srv.cacheControl = "public, max-age=300"
	j := NewJWKS(srv.URL, srv.Client(), Clock(clk.Now))
	ctx := context.Background()
	get := func() {
		t.Helper()
		if _, err := j.Key(ctx, "e", "ES256"); err != nil {
			t.Fatal(err)
		}
	}
	get()
	clk.Advance(299 * time.Second)
	get()
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("fetches = %d within max-age", n)
	}
	clk.Advance(2 * time.Second)
	get() // answers from the stale set and refreshes it in the background
	j.settle()
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetches = %d after max-age", n)
	}
}

func TestJWKSTTL(t *testing.T) {
	t.Parallel()
	j := NewJWKS("http://unused", nil)
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", time.Hour},
		{"max-age=600", 10 * time.Minute},
		{"public, Max-Age=\"120\"", 2 * time.Minute},
		{"max-age=5", time.Minute},            // floor: MinRefresh
		{"max-age=999999999", 24 * time.Hour}, // cap
		{"no-store", time.Minute},
		{"max-age=abc", time.Hour},
	} {
		if got := j.ttl(tc.header); got != tc.want {
			t.Errorf("ttl(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestJWKSParsing(t *testing.T) {
	t.Parallel()
	srv := newJWKSServer(t,
		map[string]any{"kty": "oct", "kid": "sym", "k": "c2VjcmV0"},
		jwkDoc(t, &rsaKey().PublicKey, "enc", "", "enc"),
		map[string]any{"kty": "EC", "kid": "bad-ec", "crv": "P-256", "x": "AAAA", "y": "AAAA"},
		map[string]any{"kty": "OKP", "kid": "x25519", "crv": "X25519", "x": "AAAA"},
		map[string]any{"kty": "weird", "kid": "w"},
		jwkDoc(t, &rsaKey().PublicKey, "rs-only", "RS256", "sig"),
		jwkDoc(t, &ecKey384().PublicKey, "p384", "", ""),
		jwkDoc(t, edKey().Public(), "ed", "", "sig"),
	)
	j := NewJWKS(srv.URL, srv.Client(), Clock(newClock().Now))
	ctx := context.Background()
	for _, tc := range []struct {
		kid, alg string
		ok       bool
	}{
		{"sym", "HS256", false},
		{"sym", "RS256", false},
		{"enc", "RS256", false},
		{"bad-ec", "ES256", false},
		{"x25519", "EdDSA", false},
		{"w", "RS256", false},
		{"rs-only", "RS256", true},
		{"rs-only", "PS256", false}, // the key's alg member restricts it
		{"p384", "ES384", true},
		{"p384", "ES256", false}, // wrong curve for the algorithm
		{"ed", "EdDSA", true},
		{"ed", "ES256", false},
	} {
		k, err := j.Key(ctx, tc.kid, tc.alg)
		if (err == nil) != tc.ok {
			t.Errorf("Key(%q, %q) = %v, %v; want ok=%v", tc.kid, tc.alg, k, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrKeyNotFound) {
			t.Errorf("Key(%q, %q) error %v does not wrap ErrKeyNotFound", tc.kid, tc.alg, err)
		}
	}
	// Without kid, the single key suiting the algorithm is used.
	if _, err := j.Key(ctx, "", "EdDSA"); err != nil {
		t.Fatal(err)
	}
}

func TestJWKSKeepsKeysWhenRefreshFails(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newJWKSServer(t, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""))
	j := NewJWKS(srv.URL, srv.Client(), Clock(clk.Now))
	ctx := context.Background()
	if _, err := j.Key(ctx, "k1", "RS256"); err != nil {
		t.Fatal(err)
	}
	srv.set(http.StatusServiceUnavailable)
	clk.Advance(2 * time.Hour)
	if _, err := j.Key(ctx, "k1", "RS256"); err != nil {
		t.Fatalf("stale key not served: %v", err)
	}
	j.settle()
	if _, err := j.Key(ctx, "k1", "RS256"); err != nil {
		t.Fatalf("stale key not served after the refresh failed: %v", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2", n)
	}
	// An unknown kid is still just unknown, not an outage.
	clk.Advance(2 * time.Minute)
	if _, err := j.Key(ctx, "k9", "RS256"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestJWKSFirstFetchFailure(t *testing.T) {
	t.Parallel()
	srv := newJWKSServer(t)
	srv.set(http.StatusNotFound)
	j := NewJWKS(srv.URL, srv.Client(), Clock(newClock().Now))
	for range 3 {
		_, err := j.Key(context.Background(), "k1", "RS256")
		if err == nil || errors.Is(err, ErrKeyNotFound) {
			t.Fatalf("err = %v, want the fetch failure", err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (failures are rate limited too)", n)
	}
}

func TestJWKSConcurrentLookupsShareOneFetch(t *testing.T) {
	t.Parallel()
	srv := newJWKSServer(t, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""))
	j := NewJWKS(srv.URL, srv.Client(), Clock(newClock().Now))
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			if _, err := j.Key(context.Background(), "k1", "RS256"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1", n)
	}
}

func TestJWKSContextCancelled(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = w.Write([]byte(`{"keys":[]}`))
	}))
	t.Cleanup(srv.Close)
	defer close(release)
	j := NewJWKS(srv.URL, srv.Client())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Key(ctx, "k1", "RS256"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// settle waits for the fetch under way, if any.
func (j *JWKS) settle() {
	j.mu.Lock()
	c := j.inflight
	j.mu.Unlock()
	if c != nil {
		<-c.done
	}
}

// A stale set answers at once while its refresh runs: a hanging key server
// does not hold up tokens whose key is cached.
func TestJWKSStaleSetAnswersWhileRefreshing(t *testing.T) {
	t.Parallel()
	clk := newClock()
	release := make(chan struct{})
	var hits atomic.Int32
	doc := jwkDoc(t, &rsaKey().PublicKey, "k1", "", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) > 1 {
			<-release
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{doc}})
	}))
	t.Cleanup(srv.Close)
	defer close(release)
	j := NewJWKS(srv.URL, srv.Client(), Clock(clk.Now))
	if _, err := j.Key(context.Background(), "k1", "RS256"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour)
	for range 3 {
		if _, err := j.Key(context.Background(), "k1", "RS256"); err != nil {
			t.Fatalf("stale key while the refresh hangs: %v", err)
		}
	}
}

// With no keys and a key server that does not answer, a lookup waits at
// most MaxWait and says the set is unavailable, with when to retry.
func TestJWKSHangingFirstFetchIsBounded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	t.Cleanup(srv.Close)
	defer close(release)
	j := NewJWKS(srv.URL, srv.Client(), MaxWait(time.Millisecond))
	_, err := j.Key(context.Background(), "k1", "RS256")
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.RetryAfter() < time.Second {
		t.Fatalf("err = %v, want an *UnavailableError with a retry delay", err)
	}
	if errors.Is(err, ErrKeyNotFound) {
		t.Fatal("an outage reported as an unknown key")
	}
}

// After the key server fails, lookups say it is unavailable (not an
// unknown key) until the retry delay, then the next fetch recovers.
func TestJWKSRecoversAfterRetryDelay(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := newJWKSServer(t, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""))
	srv.set(http.StatusInternalServerError)
	j := NewJWKS(srv.URL, srv.Client(), Clock(clk.Now))
	ctx := context.Background()
	for range 2 {
		_, err := j.Key(ctx, "k1", "RS256")
		var ue *UnavailableError
		if !errors.As(err, &ue) || ue.RetryAfter() > DefaultJWKSRetry {
			t.Fatalf("err = %v, want unavailable for at most %v", err, DefaultJWKSRetry)
		}
	}
	srv.set(http.StatusOK, jwkDoc(t, &rsaKey().PublicKey, "k1", "", ""))
	clk.Advance(DefaultJWKSRetry)
	if _, err := j.Key(ctx, "k1", "RS256"); err != nil {
		t.Fatalf("not recovered after the retry delay: %v", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2", n)
	}
}
