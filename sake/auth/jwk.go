package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
)

// jwk is a JSON Web Key (RFC 7517) as this package reads it.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	Crv string `json:"crv,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`

	// Private and symmetric members, only to refuse keys that carry them.
	D   string          `json:"d,omitempty"`
	P   string          `json:"p,omitempty"`
	Q   string          `json:"q,omitempty"`
	DP  string          `json:"dp,omitempty"`
	DQ  string          `json:"dq,omitempty"`
	QI  string          `json:"qi,omitempty"`
	K   string          `json:"k,omitempty"`
	Oth json.RawMessage `json:"oth,omitempty"`
}

var errUnsupportedKey = errors.New("unsupported key type")

// hasPrivate reports whether the key carries private or symmetric material.
func (k *jwk) hasPrivate() bool {
	return k.D != "" || k.P != "" || k.Q != "" || k.DP != "" || k.DQ != "" || k.QI != "" ||
		k.K != "" || len(k.Oth) > 0
}

// publicKey decodes the key: *rsa.PublicKey, *ecdsa.PublicKey on P-256,
// P-384 or P-521, or ed25519.PublicKey. Other key types give
// errUnsupportedKey.
func (k *jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64(k.N)
		if err != nil || len(n) == 0 || n[0] == 0 {
			return nil, errors.New("jwk: bad RSA modulus")
		}
		e, err := b64(k.E)
		if err != nil || len(e) == 0 || len(e) > 4 || e[0] == 0 {
			return nil, errors.New("jwk: bad RSA exponent")
		}
		var exp int
		for _, c := range e {
			exp = exp<<8 | int(c)
		}
		if exp < 3 || exp%2 == 0 {
			return nil, errors.New("jwk: bad RSA exponent")
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}, nil
	case "EC":
		var curve elliptic.Curve
		switch k.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, errUnsupportedKey
		}
		size := (curve.Params().BitSize + 7) / 8
		x, errX := b64(k.X)
		y, errY := b64(k.Y)
		if errX != nil || errY != nil || len(x) != size || len(y) != size {
			return nil, errors.New("jwk: bad EC coordinates")
		}
		point := make([]byte, 0, 1+2*size)
		point = append(append(append(point, 4), x...), y...)
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, point)
		if err != nil {
			return nil, fmt.Errorf("jwk: %w", err)
		}
		return pub, nil
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, errUnsupportedKey
		}
		x, err := b64(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("jwk: bad Ed25519 key")
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, errUnsupportedKey
}

func b64(s string) ([]byte, error) { return base64.RawURLEncoding.Strict().DecodeString(s) }

func enc(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// publicJWK returns the required public members of key's JWK (RFC 7638 §3.2),
// which are also all a DPoP proof header needs.
func publicJWK(key crypto.PublicKey) (*jwk, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		e := big.NewInt(int64(k.E)).Bytes()
		return &jwk{Kty: "RSA", N: enc(k.N.Bytes()), E: enc(e)}, nil
	case *ecdsa.PublicKey:
		var crv string
		switch k.Curve {
		case elliptic.P256():
			crv = "P-256"
		case elliptic.P384():
			crv = "P-384"
		case elliptic.P521():
			crv = "P-521"
		default:
			return nil, errUnsupportedKey
		}
		point, err := k.Bytes()
		if err != nil {
			return nil, err
		}
		size := (len(point) - 1) / 2
		return &jwk{Kty: "EC", Crv: crv, X: enc(point[1 : 1+size]), Y: enc(point[1+size:])}, nil
	case ed25519.PublicKey:
		return &jwk{Kty: "OKP", Crv: "Ed25519", X: enc(k)}, nil
	}
	return nil, errUnsupportedKey
}

// Thumbprint returns the RFC 7638 JWK SHA-256 thumbprint of a public key,
// base64url without padding: the value of a DPoP-bound token's cnf.jkt.
// The key is an *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey.
func Thumbprint(key crypto.PublicKey) (string, error) {
	k, err := publicJWK(key)
	if err != nil {
		return "", err
	}
	return k.thumbprint(), nil
}

// thumbprint hashes the required members in lexicographic order, without
// whitespace (RFC 7638 §3). The member values are base64url or fixed names,
// so they need no JSON escaping.
func (k *jwk) thumbprint() string {
	var s string
	switch k.Kty {
	case "RSA":
		s = `{"e":"` + k.E + `","kty":"RSA","n":"` + k.N + `"}`
	case "EC":
		s = `{"crv":"` + k.Crv + `","kty":"EC","x":"` + k.X + `","y":"` + k.Y + `"}`
	case "OKP":
		s = `{"crv":"` + k.Crv + `","kty":"OKP","x":"` + k.X + `"}`
	}
	sum := sha256.Sum256([]byte(s))
	return enc(sum[:])
}
