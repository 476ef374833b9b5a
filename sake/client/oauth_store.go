package client

import (
	"context"
	"sync"
	"time"
)

// Token is an OAuth access token the client holds for one protected
// resource.
type Token struct {
	AccessToken  string
	TokenType    string // "Bearer" or "DPoP"
	RefreshToken string
	// Expiry is when the access token expires (zero: unknown).
	Expiry time.Time
	// Scopes are the scopes granted (or, when the server did not say,
	// asked for).
	Scopes []string
	// Issuer is the authorization server that issued the token; a refresh
	// goes to it and nowhere else.
	Issuer string
	// Resource is the protected resource the token is for (RFC 8707).
	Resource string
	// ClientID is the client the token was issued to.
	ClientID string
}

// TokenStore keeps tokens by protected resource. MemoryTokenStore is the
// default; a program that keeps tokens across runs implements it over its
// own storage (encrypted: tokens are credentials).
type TokenStore interface {
	// Load returns the token for resource, or nil when there is none.
	Load(ctx context.Context, resource string) (*Token, error)
	// Save keeps the token for resource, replacing any other.
	Save(ctx context.Context, resource string, t *Token) error
	// Delete forgets the token for resource.
	Delete(ctx context.Context, resource string) error
}

// MemoryTokenStore returns a TokenStore that keeps tokens in memory.
func MemoryTokenStore() TokenStore { return &memoryStore{m: map[string]Token{}} }

type memoryStore struct {
	mu sync.Mutex
	m  map[string]Token
}

func (s *memoryStore) Load(_ context.Context, resource string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[resource]
	if !ok {
		return nil, nil
	}
	t.Scopes = append([]string(nil), t.Scopes...)
	return &t, nil
}

func (s *memoryStore) Save(_ context.Context, resource string, t *Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *t
	c.Scopes = append([]string(nil), t.Scopes...)
	s.m[resource] = c
	return nil
}

func (s *memoryStore) Delete(_ context.Context, resource string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, resource)
	return nil
}
