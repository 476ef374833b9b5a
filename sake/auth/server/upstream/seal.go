package upstream

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
)

// sealer encrypts and authenticates what leaves the process (cookies,
// URLs, the store) with AES-256-GCM, one key per purpose, each derived
// from Config.Secret.
type sealer struct{ secret []byte }

var errUnsealed = errors.New("upstream: sealed value is invalid")

func (s sealer) aead(purpose string) cipher.AEAD {
	h := hmac.New(sha256.New, s.secret)
	h.Write([]byte("sake upstream " + purpose))
	block, _ := aes.NewCipher(h.Sum(nil))
	g, _ := cipher.NewGCM(block)
	return g
}

// seal encrypts v's JSON for purpose, bound to context (associated data).
func (s sealer) seal(purpose, context string, v any) ([]byte, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	g := s.aead(purpose)
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(plain)+g.Overhead())
	_, _ = rand.Read(nonce)
	return g.Seal(nonce, nonce, plain, []byte(context)), nil
}

// open decrypts what seal made for purpose and context into v.
func (s sealer) open(purpose, context string, sealed []byte, v any) error {
	g := s.aead(purpose)
	if len(sealed) < g.NonceSize()+g.Overhead() {
		return errUnsealed
	}
	plain, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], []byte(context))
	if err != nil {
		return errUnsealed
	}
	if json.Unmarshal(plain, v) != nil {
		return errUnsealed
	}
	return nil
}

func (s sealer) sealString(purpose, context string, v any) (string, error) {
	b, err := s.seal(purpose, context, v)
	return base64.RawURLEncoding.EncodeToString(b), err
}

func (s sealer) openString(purpose, context, sealed string, v any) error {
	if len(sealed) > maxSealed {
		return errUnsealed
	}
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		return errUnsealed
	}
	return s.open(purpose, context, b, v)
}

// maxSealed bounds a sealed value read from a cookie or a URL.
const maxSealed = 4096

// hash is base64url(SHA-256(s)), the form a Store keeps handles in.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
