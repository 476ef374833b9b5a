package server

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// randomToken returns n random bytes, base64url-encoded.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashHandle is the stored form of a handle: base64url(SHA-256(s)).
// Handles are 256-bit random values, so a plain hash is enough.
func hashHandle(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// secretIterations is the PBKDF2 work factor for client secrets.
const secretIterations = 20_000

// HashSecret returns the stored form of a client secret: PBKDF2-SHA256
// with a random salt, as "pbkdf2-sha256$ITER$SALT$HASH". Put the result in
// Client.SecretHash; the secret itself is never stored.
func HashSecret(secret string) (string, error) {
	if secret == "" {
		return "", errors.New("authserver: empty client secret")
	}
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key, err := pbkdf2.Key(sha256.New, secret, salt, secretIterations, 32)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return fmt.Sprintf("pbkdf2-sha256$%d$%s$%s", secretIterations, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// checkSecret reports whether secret matches a HashSecret result, in
// constant time with respect to the secret.
func checkSecret(stored, secret string) bool {
	parts := strings.Split(stored, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return false
	}
	iter, err := strconv.Atoi(parts[1])
	if err != nil || iter < 1 || iter > 10_000_000 {
		return false
	}
	enc := base64.RawURLEncoding
	salt, err1 := enc.DecodeString(parts[2])
	want, err2 := enc.DecodeString(parts[3])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, secret, salt, iter, len(want))
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}

// mac returns base64url(HMAC-SHA256(key, parts joined by NUL)).
func mac(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// s256 is the PKCE S256 transform of a verifier.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// validVerifier checks RFC 7636 §4.1: 43 to 128 unreserved characters.
// The same syntax applies to a code_challenge (43 characters for S256).
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// containsAll reports whether have holds every element of want.
func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// S256 returns the PKCE S256 code challenge of verifier (RFC 7636 §4.2),
// for clients and tests.
func S256(verifier string) string { return s256(verifier) }
