package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	testIssuer   = "https://auth.example.com"
	testResource = "https://x/mcp"
)

var (
	t0         = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	testSecret = []byte("0123456789abcdef0123456789abcdef")
)

func mustKey[K any](k K, err error) K {
	if err != nil {
		panic(err)
	}
	return k
}

// Keys are generated once per test binary; RSA generation is slow.
var (
	rsaKey   = sync.OnceValue(func() *rsa.PrivateKey { return mustKey(rsa.GenerateKey(rand.Reader, 2048)) })
	rsaKey2  = sync.OnceValue(func() *rsa.PrivateKey { return mustKey(rsa.GenerateKey(rand.Reader, 2048)) })
	ecKey    = sync.OnceValue(func() *ecdsa.PrivateKey { return mustKey(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
	ecKey2   = sync.OnceValue(func() *ecdsa.PrivateKey { return mustKey(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
	ecKey384 = sync.OnceValue(func() *ecdsa.PrivateKey { return mustKey(ecdsa.GenerateKey(elliptic.P384(), rand.Reader)) })
	edKey    = sync.OnceValue(func() ed25519.PrivateKey {
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return mustKey(k, err)
	})
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// claimsAt returns valid access token claims issued at now.
func claimsAt(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss":       testIssuer,
		"aud":       testResource,
		"sub":       "alice",
		"client_id": "client-1",
		"iat":       now.Unix(),
		"exp":       now.Add(time.Hour).Unix(),
		"scope":     "notes:read notes:write",
	}
}

func sign(t testing.TB, m jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jwkDoc renders a public key as a JWK with kid (and alg, use when set).
func jwkDoc(t testing.TB, pub any, kid, alg, use string) map[string]any {
	t.Helper()
	k, err := publicJWK(pub)
	if err != nil {
		t.Fatal(err)
	}
	k.Kid, k.Alg, k.Use = kid, alg, use
	var m map[string]any
	b, _ := json.Marshal(k)
	_ = json.Unmarshal(b, &m)
	return m
}

// jwksServer serves a key set and counts the requests.
type jwksServer struct {
	*httptest.Server
	hits         atomic.Int64
	mu           sync.Mutex
	keys         []map[string]any
	cacheControl string
	status       int
}

func newJWKSServer(t testing.TB, keys ...map[string]any) *jwksServer {
	s := &jwksServer{keys: keys, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cacheControl != "" {
			w.Header().Set("Cache-Control", s.cacheControl)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": s.keys})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(status int, keys ...map[string]any) {
	s.mu.Lock()
	s.status, s.keys = status, keys
	s.mu.Unlock()
}

// wantAuthError fails unless err is an *Error with the status and code.
func wantAuthError(t *testing.T, err error, status int, code string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error %d %q", err, err, status, code)
	}
	if e.Status != status || e.Code != code {
		t.Fatalf("err = %d %q (%v), want %d %q", e.Status, e.Code, e.Unwrap(), status, code)
	}
	t.Logf("cause: %v", e.Unwrap())
	return e
}

var jwtRS256 = jwt.SigningMethodRS256

var jwtES256 = jwt.SigningMethodES256
