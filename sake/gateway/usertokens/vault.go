package usertokens

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
)

// KeySize is the size of a vault key in bytes (AES-256).
const KeySize = 32

// MaxTokenBytes bounds one token as stored (its JSON before sealing):
// 16 KiB. A larger token is refused with ErrTokenTooLarge.
const MaxTokenBytes = 16 << 10

// MaxKeys bounds the keys of one vault (the sealing key and older ones).
const MaxKeys = 8

// ErrTokenTooLarge is returned when a token does not fit MaxTokenBytes.
var ErrTokenTooLarge = errors.New("usertokens: the token is larger than MaxTokenBytes")

// ErrUnreadable is returned (wrapped) when a stored token does not open
// with any of the vault's keys: it was sealed with a key the vault was not
// given, for another user or resource, or changed at rest. The token is
// treated as absent by For's stores (the user signs in again).
var ErrUnreadable = errors.New("usertokens: a stored token does not open with the vault's keys")

// Backend stores sealed tokens by user and resource. It sees only
// ciphertext. Implementations are safe for concurrent use.
type Backend interface {
	// Get returns the sealed token of user at resource, or nil (and no
	// error) when there is none.
	Get(ctx context.Context, user, resource string) ([]byte, error)
	// Put keeps sealed as the token of user at resource, replacing any.
	Put(ctx context.Context, user, resource string, sealed []byte) error
	// Delete forgets the token of user at resource.
	Delete(ctx context.Context, user, resource string) error
	// DeleteUser forgets every token of user.
	DeleteUser(ctx context.Context, user string) error
}

// Vault seals tokens before they reach its Backend. Build it with New.
type Vault struct {
	backend Backend
	aeads   []cipher.AEAD // aeads[0] seals; all open
	now     func() time.Time
}

// New returns a vault over backend. keys[0] seals; every key opens (older
// keys, for rotation). Each key is KeySize bytes.
func New(backend Backend, keys ...[]byte) (*Vault, error) {
	if backend == nil {
		return nil, errors.New("usertokens: New needs a backend (usertokens.Memory, or pgusertokens for replicas)")
	}
	if len(keys) == 0 {
		return nil, errors.New("usertokens: New needs a key of 32 bytes (KeyFromEnv reads one from the environment)")
	}
	if len(keys) > MaxKeys {
		return nil, fmt.Errorf("usertokens: %d keys given, at most %d: drop the oldest", len(keys), MaxKeys)
	}
	v := &Vault{backend: backend, now: time.Now}
	for i, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("usertokens: key %d has %d bytes, want %d (make one with `openssl rand -base64 32`)", i, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		v.aeads = append(v.aeads, aead)
	}
	return v, nil
}

// KeyFromEnv reads a vault key from the environment variable name: 32
// bytes in standard or URL-safe base64 (padded or not), as `openssl rand
// -base64 32` prints. Several keys, separated by commas, are returned in
// their order (the first seals; see New).
func KeyFromEnv(name string) ([][]byte, error) {
	keys, err := ParseKeys(os.Getenv(name))
	if err != nil {
		return nil, fmt.Errorf("usertokens: $%s: %w", name, err)
	}
	return keys, nil
}

// ParseKeys reads vault keys as KeyFromEnv does, from s (for a program
// that takes them from elsewhere than its environment: a file, a secret
// manager).
func ParseKeys(s string) ([][]byte, error) {
	raw := strings.TrimSpace(s)
	if raw == "" {
		return nil, errors.New("no key: set it to a key of 32 bytes in base64 (`openssl rand -base64 32`)")
	}
	var keys [][]byte
	for i, part := range strings.Split(raw, ",") {
		k, err := decodeKey(strings.TrimSpace(part))
		if err != nil || len(k) != KeySize {
			return nil, fmt.Errorf("key %d is not 32 bytes in base64: make one with `openssl rand -base64 32`", i)
		}
		keys = append(keys, k)
	}
	if len(keys) > MaxKeys {
		return nil, fmt.Errorf("%d keys, at most %d: drop the oldest", len(keys), MaxKeys)
	}
	return keys, nil
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			return k, nil
		}
	}
	return nil, errors.New("not base64")
}

// sealVersion prefixes every sealed token, so the format can change.
const sealVersion = 1

// aad binds a sealed token to its user and resource.
func aad(user, resource string) []byte {
	b := make([]byte, 0, len("sake-usertoken\x00")+len(user)+1+len(resource))
	b = append(b, "sake-usertoken\x00"...)
	b = append(b, user...)
	b = append(b, 0)
	return append(b, resource...)
}

// stored is a token as sealed.
type stored struct {
	AccessToken  string    `json:"a"`
	TokenType    string    `json:"t,omitempty"`
	RefreshToken string    `json:"r,omitempty"`
	Expiry       time.Time `json:"e,omitzero"`
	Scopes       []string  `json:"s,omitempty"`
	Issuer       string    `json:"i,omitempty"`
	Resource     string    `json:"res,omitempty"`
	ClientID     string    `json:"c,omitempty"`
}

func (v *Vault) seal(user, resource string, t *client.Token) ([]byte, error) {
	plain, err := json.Marshal(stored(*t))
	if err != nil {
		return nil, err
	}
	if len(plain) > MaxTokenBytes {
		return nil, ErrTokenTooLarge
	}
	aead := v.aeads[0]
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, err
	}
	return aead.Seal(out, out[1:1+aead.NonceSize()], plain, aad(user, resource)), nil
}

// open returns the token sealed in b and whether it was sealed with an
// older key (it should be sealed again).
func (v *Vault) open(user, resource string, b []byte) (*client.Token, bool, error) {
	if len(b) < 1 || b[0] != sealVersion {
		return nil, false, fmt.Errorf("%w (unknown format)", ErrUnreadable)
	}
	ad := aad(user, resource)
	for i, aead := range v.aeads {
		n := aead.NonceSize()
		if len(b) < 1+n+aead.Overhead() {
			continue
		}
		plain, err := aead.Open(nil, b[1:1+n], b[1+n:], ad)
		if err != nil {
			continue
		}
		var s stored
		if err := json.Unmarshal(plain, &s); err != nil {
			return nil, false, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
		t := client.Token(s)
		return &t, i > 0, nil
	}
	return nil, false, ErrUnreadable
}

// For returns the token store of user: what the OAuth flow of sake/client
// saves there is sealed for that user, and only that user's tokens load.
// user must not be empty (an anonymous caller has no tokens of its own).
func (v *Vault) For(user string) client.TokenStore { return &userStore{v: v, user: user} }

// SignOut forgets every token of user, at every resource.
func (v *Vault) SignOut(ctx context.Context, user string) error {
	if user == "" {
		return errNoUser
	}
	return v.backend.DeleteUser(ctx, user)
}

var errNoUser = errors.New("usertokens: no user: an anonymous caller holds no tokens (sign callers in first)")

type userStore struct {
	v    *Vault
	user string
}

func (s *userStore) Load(ctx context.Context, resource string) (*client.Token, error) {
	if s.user == "" {
		return nil, errNoUser
	}
	b, err := s.v.backend.Get(ctx, s.user, resource)
	if err != nil || b == nil {
		return nil, err
	}
	t, old, err := s.v.open(s.user, resource, b)
	if errors.Is(err, ErrUnreadable) {
		return nil, nil // as if absent: the user signs in again
	}
	if err != nil {
		return nil, err
	}
	if old {
		if sealed, err := s.v.seal(s.user, resource, t); err == nil {
			_ = s.v.backend.Put(ctx, s.user, resource, sealed) // best effort: it opens either way
		}
	}
	return t, nil
}

func (s *userStore) Save(ctx context.Context, resource string, t *client.Token) error {
	if s.user == "" {
		return errNoUser
	}
	if t == nil {
		return s.v.backend.Delete(ctx, s.user, resource)
	}
	sealed, err := s.v.seal(s.user, resource, t)
	if err != nil {
		return err
	}
	return s.v.backend.Put(ctx, s.user, resource, sealed)
}

func (s *userStore) Delete(ctx context.Context, resource string) error {
	if s.user == "" {
		return errNoUser
	}
	return s.v.backend.Delete(ctx, s.user, resource)
}
