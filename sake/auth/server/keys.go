package server

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/auth"
)

// The signing algorithms the server can use.
const (
	ES256 = "ES256"
	EdDSA = "EdDSA"
)

// signingKey is one key of the ring.
type signingKey struct {
	kid    string
	alg    string
	priv   crypto.Signer
	jwk    map[string]any
	retire time.Time // zero while active or next
}

// keyRing holds the active signing key, the next one (already published
// so that verifiers caching the JWKS know it before it signs) and retired
// ones (published until the last token they signed expires).
type keyRing struct {
	alg     string
	keepFor time.Duration

	mu      sync.RWMutex
	active  *signingKey
	next    *signingKey
	retired []*signingKey
	jwks    []byte
}

func newSigningKey(alg string, priv crypto.Signer) (*signingKey, error) {
	var err error
	if priv == nil {
		switch alg {
		case ES256:
			priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		case EdDSA:
			_, priv, err = ed25519.GenerateKey(rand.Reader)
		default:
			return nil, fmt.Errorf("authserver: signing algorithm %q: use ES256 or EdDSA", alg)
		}
		if err != nil {
			return nil, err
		}
	}
	pub := priv.Public()
	kid, err := auth.Thumbprint(pub)
	if err != nil {
		return nil, err
	}
	enc := base64.RawURLEncoding.EncodeToString
	k := &signingKey{kid: kid, priv: priv}
	switch p := pub.(type) {
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return nil, errors.New("authserver: ECDSA signing keys must be P-256 (ES256)")
		}
		b, err := p.Bytes()
		if err != nil {
			return nil, err
		}
		k.alg = ES256
		k.jwk = map[string]any{"kty": "EC", "crv": "P-256", "x": enc(b[1:33]), "y": enc(b[33:])}
	case ed25519.PublicKey:
		k.alg = EdDSA
		k.jwk = map[string]any{"kty": "OKP", "crv": "Ed25519", "x": enc(p)}
	default:
		return nil, fmt.Errorf("authserver: signing key of type %T: use an ECDSA P-256 or Ed25519 key", pub)
	}
	k.jwk["kid"], k.jwk["alg"], k.jwk["use"] = kid, k.alg, "sig"
	return k, nil
}

// newKeyRing builds a ring from given keys (the first signs, the others
// are published only) or a generated one.
func newKeyRing(alg string, given []crypto.Signer, keepFor time.Duration) (*keyRing, error) {
	kr := &keyRing{alg: alg, keepFor: keepFor}
	if len(given) > 0 {
		for i, g := range given {
			k, err := newSigningKey(alg, g)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				kr.active = k
			} else {
				k.retire = time.Now().Add(100 * 365 * 24 * time.Hour)
				kr.retired = append(kr.retired, k)
			}
		}
		kr.alg = kr.active.alg
	} else {
		var err error
		if kr.active, err = newSigningKey(alg, nil); err != nil {
			return nil, err
		}
		if kr.next, err = newSigningKey(alg, nil); err != nil {
			return nil, err
		}
	}
	kr.publish()
	return kr, nil
}

// publish renders the JWKS. kr.mu is held for writing (or not yet shared).
func (kr *keyRing) publish() {
	keys := []map[string]any{kr.active.jwk}
	if kr.next != nil {
		keys = append(keys, kr.next.jwk)
	}
	for _, k := range kr.retired {
		keys = append(keys, k.jwk)
	}
	kr.jwks, _ = json.Marshal(map[string]any{"keys": keys})
}

// rotate makes the next key active, retires the active one, and
// generates a new next key; retired keys past their time are dropped.
func (kr *keyRing) rotate(now time.Time) error {
	fresh, err := newSigningKey(kr.alg, nil)
	if err != nil {
		return err
	}
	kr.mu.Lock()
	defer kr.mu.Unlock()
	old := kr.active
	old.retire = now.Add(kr.keepFor)
	if kr.next != nil {
		kr.active = kr.next
	} else {
		kr.active = fresh
		fresh = nil
	}
	if fresh != nil {
		kr.next = fresh
	}
	kept := kr.retired[:0]
	for _, k := range kr.retired {
		if now.Before(k.retire) {
			kept = append(kept, k)
		}
	}
	kr.retired = append(kept, old)
	kr.publish()
	return nil
}

// sign signs claims with the active key, with header typ.
func (kr *keyRing) sign(claims jwt.MapClaims, typ string) (string, error) {
	kr.mu.RLock()
	k := kr.active
	kr.mu.RUnlock()
	var m jwt.SigningMethod = jwt.SigningMethodES256
	if k.alg == EdDSA {
		m = jwt.SigningMethodEdDSA
	}
	t := jwt.NewWithClaims(m, claims)
	t.Header["kid"] = k.kid
	if typ != "" {
		t.Header["typ"] = typ
	}
	return t.SignedString(k.priv)
}

// publicKey returns the published public key with kid, for verifying
// the server's own tokens.
func (kr *keyRing) publicKey(kid string) (crypto.PublicKey, string, bool) {
	kr.mu.RLock()
	defer kr.mu.RUnlock()
	for _, k := range append([]*signingKey{kr.active, kr.next}, kr.retired...) {
		if k != nil && k.kid == kid {
			return k.priv.Public(), k.alg, true
		}
	}
	return nil, "", false
}

func (kr *keyRing) document() []byte {
	kr.mu.RLock()
	defer kr.mu.RUnlock()
	return kr.jwks
}

// parse verifies a JWT the server signed itself (typ checked by the
// caller) and returns its claims.
func (kr *keyRing) parse(token, issuer string, now time.Time) (jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	p := jwt.NewParser(jwt.WithValidMethods([]string{ES256, EdDSA}), jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(func() time.Time { return now }))
	_, err := p.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		pub, alg, ok := kr.publicKey(kid)
		if !ok || alg != t.Method.Alg() {
			return nil, errors.New("unknown key")
		}
		return pub, nil
	})
	if err != nil {
		return nil, err
	}
	return claims, nil
}
