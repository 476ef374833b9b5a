package state

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Default bounds and lifetime: see Limits and Config.
const (
	DefaultTTL           = 24 * time.Hour
	defaultMaxKeyBytes   = 256
	defaultMaxValueBytes = 64 << 10
	defaultMaxScopeBytes = 1 << 20
	defaultMaxScopeKeys  = 1024
)

// Limits bound what a caller can store. A zero field takes its default.
type Limits struct {
	// MaxKeyBytes bounds a key's length: 256 bytes by default.
	MaxKeyBytes int
	// MaxValueBytes bounds one value's JSON: 64 KiB by default.
	MaxValueBytes int
	// MaxScopeBytes bounds the sum of a scope's keys and values: 1 MiB by
	// default.
	MaxScopeBytes int64
	// MaxScopeKeys bounds the number of keys in a scope: 1,024 by default.
	MaxScopeKeys int
}

// Config configures a State. The zero Config keeps values in memory,
// signs handles with a key made at random for this process, and applies
// the default bounds.
type Config struct {
	// Store keeps the values; nil means a MemoryStore with its default
	// bounds. Replicas share one store (sake/state/pgstate).
	Store Store
	// Key signs handles, at least 32 bytes. Replicas must share it, or a
	// handle made on one is refused by another; nil makes a random key,
	// which suits one process.
	Key []byte
	// TTL is how long a value lives after its last write: DefaultTTL when
	// zero.
	TTL time.Duration
	// TenantClaims are the token claims that name the caller's tenant, in
	// order of preference; the first one present joins the issuer and the
	// subject in the user scope's key. Nil means tid, tenant, tenant_id
	// and org_id. Listing a claim can only split users apart, never merge
	// them.
	TenantClaims []string
	// Limits bound keys, values and scopes.
	Limits Limits
}

// State is the entry point: it finds the scope of a call and carries the
// store, the signing key and the bounds. It is safe for concurrent use.
type State struct {
	store        Store
	key          []byte
	ttl          time.Duration
	tenantClaims []string
	limits       Limits
}

// New makes a State. It fails for a Key shorter than 32 bytes or a
// negative TTL or bound.
func New(cfg Config) (*State, error) {
	s := &State{store: cfg.Store, key: cfg.Key, ttl: cfg.TTL, tenantClaims: cfg.TenantClaims, limits: cfg.Limits}
	if s.store == nil {
		s.store = NewMemoryStore(0)
	}
	if s.key == nil {
		s.key = make([]byte, 32)
		if _, err := rand.Read(s.key); err != nil {
			return nil, fmt.Errorf("state: making a handle key: %w", err)
		}
	} else if len(s.key) < 32 {
		return nil, errors.New("state: Config.Key must be at least 32 bytes (for example 32 random bytes shared by every replica)")
	}
	if s.ttl < 0 || s.limits.MaxKeyBytes < 0 || s.limits.MaxValueBytes < 0 || s.limits.MaxScopeBytes < 0 || s.limits.MaxScopeKeys < 0 {
		return nil, errors.New("state: Config.TTL and Config.Limits must not be negative (zero takes the default)")
	}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	if s.tenantClaims == nil {
		s.tenantClaims = []string{"tid", "tenant", "tenant_id", "org_id"}
	}
	if s.limits.MaxKeyBytes == 0 {
		s.limits.MaxKeyBytes = defaultMaxKeyBytes
	}
	if s.limits.MaxValueBytes == 0 {
		s.limits.MaxValueBytes = defaultMaxValueBytes
	}
	if s.limits.MaxScopeBytes == 0 {
		s.limits.MaxScopeBytes = defaultMaxScopeBytes
	}
	if s.limits.MaxScopeKeys == 0 {
		s.limits.MaxScopeKeys = defaultMaxScopeKeys
	}
	return s, nil
}

// MustNew is New that panics on error, for package-level variables and
// tests.
func MustNew(cfg Config) *State {
	s, err := New(cfg)
	if err != nil {
		panic(err)
	}
	return s
}

// User returns the scope of the signed-in caller: the same in both eras,
// in every session of that user and on every replica. An anonymous caller
// gets ErrNoIdentity.
func (s *State) User(ctx *sake.Context) (*Scope, error) {
	return s.UserOf(ctx.Identity())
}

// UserOf returns the user scope of an identity, outside any call: a test
// presets or inspects a user's state with it, and an application may
// reach it from its own code (an admin page, a webhook).
func (s *State) UserOf(id *sake.Identity) (*Scope, error) {
	key, ok := s.userKey(id)
	if !ok {
		return nil, ErrNoIdentity
	}
	return s.scope("u:" + key), nil
}

// Session returns the scope of the call's 2025-11-25 session. A call of
// the 2026-07-28 era, which has no session, gets ErrNoSession. Values
// outlive the session by the TTL unless the tool clears them.
func (s *State) Session(ctx *sake.Context) (*Scope, error) {
	sess := ctx.Session()
	if sess == nil {
		return nil, ErrNoSession
	}
	return s.scope("s:" + sess.ID()), nil
}

// userKey is the issuer, tenant and owner of an identity, each escaped
// so that no two identities share a key; false for an anonymous one.
func (s *State) userKey(id *sake.Identity) (string, bool) {
	owner := id.Owner()
	if owner == "" {
		return "", false
	}
	var iss, tenant string
	if id.Claims != nil {
		iss, _ = id.Claims["iss"].(string)
		for _, c := range s.tenantClaims {
			if v, ok := id.Claims[c]; ok && v != nil {
				tenant = c + "=" + fmt.Sprint(v)
				break
			}
		}
	}
	return escape(iss) + ":" + escape(tenant) + ":" + owner, true
}

// escape percent-escapes % and : so that the parts of a key never run
// into each other.
func escape(v string) string {
	if !strings.ContainsAny(v, "%:") {
		return v
	}
	r := strings.NewReplacer("%", "%25", ":", "%3A")
	return r.Replace(v)
}

func (s *State) scope(name string) *Scope {
	return &Scope{state: s, name: name, ttl: s.ttl}
}
