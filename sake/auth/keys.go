package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
)

// KeySource supplies the public key that verifies a token signed with alg
// under key id kid (kid may be empty when the token names none).
//
// Key returns an error wrapping ErrKeyNotFound when it has no such key; the
// token is then rejected as invalid_token. Any other error means the source
// is unavailable, and the verifier reports it as such rather than blaming
// the token.
type KeySource interface {
	Key(ctx context.Context, kid, alg string) (any, error)
}

// ErrKeyNotFound is wrapped by KeySource errors for an unknown kid or a key
// that does not suit the token's algorithm.
var ErrKeyNotFound = errors.New("auth: signing key not found")

// StaticKeys is a KeySource over a fixed set of keys by kid. The values are
// *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey (the matching
// private keys are accepted too and reduced to their public halves). A token
// without kid uses the only key when there is exactly one.
func StaticKeys(keys map[string]any) KeySource {
	s := make(staticKeys, len(keys))
	for kid, k := range keys {
		switch p := k.(type) {
		case *rsa.PrivateKey:
			k = &p.PublicKey
		case *ecdsa.PrivateKey:
			k = &p.PublicKey
		case ed25519.PrivateKey:
			k = p.Public()
		}
		s[kid] = k
	}
	return s
}

type staticKeys map[string]any

func (s staticKeys) Key(_ context.Context, kid, alg string) (any, error) {
	k, ok := s[kid]
	if !ok && kid == "" && len(s) == 1 {
		for _, only := range s {
			k, ok = only, true
		}
	}
	if !ok {
		return nil, fmt.Errorf("%w: kid %q", ErrKeyNotFound, kid)
	}
	if err := checkKey(alg, k); err != nil {
		return nil, err
	}
	return k, nil
}

// RSA modulus bounds: below 2048 bits is too weak, above 8192 bits is a cost
// an attacker could impose.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// checkKey reports whether key is the right kind of public key for alg. It is
// what prevents algorithm confusion: an asymmetric algorithm accepts only its
// own key type and curve, never bytes.
func checkKey(alg string, key any) error {
	switch alg {
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		k, ok := key.(*rsa.PublicKey)
		if !ok || k == nil || k.N == nil {
			break
		}
		if bits := k.N.BitLen(); bits < minRSABits || bits > maxRSABits {
			return fmt.Errorf("%w: RSA key of %d bits", ErrKeyNotFound, bits)
		}
		return nil
	case "ES256", "ES384", "ES512":
		k, ok := key.(*ecdsa.PublicKey)
		if !ok || k == nil {
			break
		}
		if k.Curve == curveFor(alg) {
			return nil
		}
	case "EdDSA":
		if k, ok := key.(ed25519.PublicKey); ok && len(k) == ed25519.PublicKeySize {
			return nil
		}
	}
	return fmt.Errorf("%w: key of type %T does not suit %s", ErrKeyNotFound, key, alg)
}

func curveFor(alg string) elliptic.Curve {
	switch alg {
	case "ES256":
		return elliptic.P256()
	case "ES384":
		return elliptic.P384()
	case "ES512":
		return elliptic.P521()
	}
	return nil
}
