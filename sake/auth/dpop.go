package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultDPoPWindow is how far a proof's iat may lie from the server's clock
// when no window is configured.
const DefaultDPoPWindow = 60 * time.Second

const (
	maxProofLen = 8 << 10 // a proof with a 4096-bit RSA key is under 2 KiB
	maxJTILen   = 256
)

var dpopParser = jwt.NewParser(
	jwt.WithValidMethods(dpopAlgorithms),
	jwt.WithoutClaimsValidation(),
	jwt.WithStrictDecoding(),
)

// VerifyDPoPProof checks a DPoP proof JWT as RFC 9449 §4.3 requires and
// returns the RFC 7638 SHA-256 thumbprint of its key, to compare with the
// access token's cnf.jkt:
//
//   - typ is "dpop+jwt" and alg one of DPoPAlgorithms (never none or HMAC);
//   - the jwk header holds a public key only, of the kind alg needs, and the
//     signature verifies with it;
//   - htm equals method, and htu equals u ignoring query and fragment
//     (scheme and host compared case-insensitively, default ports ignored);
//   - iat lies within window of now (DefaultDPoPWindow when window <= 0);
//   - jti is present and, when replay is not nil, not seen before;
//   - when accessToken is not empty, ath is base64url(SHA-256(accessToken)).
//
// Every failure is an *Error with code invalid_dpop_proof.
func VerifyDPoPProof(proof string, method string, u *url.URL, accessToken string, now time.Time,
	window time.Duration, replay ReplayCache) (jkt string, err error) {
	if window <= 0 {
		window = DefaultDPoPWindow
	}
	switch {
	case proof == "":
		return "", InvalidDPoPProof(errors.New("dpop: no proof"))
	case len(proof) > maxProofLen:
		return "", InvalidDPoPProof(errors.New("dpop: proof too large"))
	case u == nil || u.Scheme == "" || u.Host == "":
		return "", InvalidDPoPProof(errors.New("dpop: request URL unknown"))
	}
	claims := jwt.MapClaims{}
	_, err = dpopParser.ParseWithClaims(proof, claims, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); !strings.EqualFold(typ, "dpop+jwt") {
			return nil, fmt.Errorf("typ %q", typ)
		}
		raw, ok := t.Header["jwk"].(map[string]any)
		if !ok {
			return nil, errors.New("no jwk header")
		}
		b, err := json.Marshal(raw)
		if err != nil {
			return nil, err
		}
		var k jwk
		if err := json.Unmarshal(b, &k); err != nil {
			return nil, fmt.Errorf("jwk: %w", err)
		}
		if k.hasPrivate() {
			return nil, errors.New("jwk holds private key material")
		}
		pub, err := k.publicKey()
		if err != nil {
			return nil, err
		}
		if err := checkKey(t.Method.Alg(), pub); err != nil {
			return nil, err
		}
		canonical, err := publicJWK(pub)
		if err != nil {
			return nil, err
		}
		jkt = canonical.thumbprint()
		return pub, nil
	})
	if err != nil {
		return "", InvalidDPoPProof(fmt.Errorf("dpop: %w", err))
	}

	if htm, _ := claims["htm"].(string); htm != method {
		return "", InvalidDPoPProof(fmt.Errorf("dpop: htm %q for a %s request", htm, method))
	}
	htu, _ := claims["htu"].(string)
	pu, err := url.Parse(htu)
	if err != nil || pu.Scheme == "" || pu.Host == "" || normalURL(pu) != normalURL(u) {
		return "", InvalidDPoPProof(fmt.Errorf("dpop: htu %q does not match the request", htu))
	}
	iat, ok := numericDate(claims["iat"])
	if !ok {
		return "", InvalidDPoPProof(errors.New("dpop: no iat"))
	}
	if iat.Before(now.Add(-window)) || iat.After(now.Add(window)) {
		return "", InvalidDPoPProof(fmt.Errorf("dpop: iat %v outside the window", iat))
	}
	jti, _ := claims["jti"].(string)
	if jti == "" || len(jti) > maxJTILen {
		return "", InvalidDPoPProof(errors.New("dpop: missing or oversized jti"))
	}
	if accessToken != "" {
		ath, _ := claims["ath"].(string)
		if subtle.ConstantTimeCompare([]byte(ath), []byte(tokenHash(accessToken))) != 1 {
			return "", InvalidDPoPProof(errors.New("dpop: ath does not match the access token"))
		}
	}
	// Recorded last, after the signature is known good, so that forged
	// proofs cannot fill the cache or poison a key's jti space.
	if replay != nil && replay.Seen(jkt+":"+jti, iat.Add(window)) {
		return "", InvalidDPoPProof(errors.New("dpop: replayed jti"))
	}
	return jkt, nil
}

// tokenHash is the ath value for an access token.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return enc(sum[:])
}

// normalURL renders u for htu comparison (RFC 9449 §4.3 with RFC 3986
// §6.2.2 and §6.2.3 normalisation): lower-case scheme and host, no default
// port, "/" for an empty path, no query or fragment.
func normalURL(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	switch {
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path
}

// NewDPoPProof signs a DPoP proof for a request, as a client does: key is an
// *ecdsa.PrivateKey on P-256 (ES256), an *rsa.PrivateKey (RS256) or an
// ed25519.PrivateKey (EdDSA); requestURL's query and fragment are dropped
// from htu; ath is set when accessToken is not empty; jti is random. The
// framework's test client uses it, and so can an MCP client.
func NewDPoPProof(key crypto.Signer, method, requestURL, accessToken string, iat time.Time) (string, error) {
	return NewDPoPProofWithNonce(key, method, requestURL, accessToken, "", iat)
}

// NewDPoPProofWithNonce is NewDPoPProof with the nonce claim a server
// asked for (RFC 9449 §8 and §9: its DPoP-Nonce header); an empty nonce
// leaves the claim out.
func NewDPoPProofWithNonce(key crypto.Signer, method, requestURL, accessToken, nonce string, iat time.Time) (string, error) {
	var signer jwt.SigningMethod
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("auth: DPoP EC keys must be P-256")
		}
		signer = jwt.SigningMethodES256
	case *rsa.PrivateKey:
		signer = jwt.SigningMethodRS256
	case ed25519.PrivateKey:
		signer = jwt.SigningMethodEdDSA
	default:
		return "", fmt.Errorf("auth: unsupported DPoP key %T", key)
	}
	pub, err := publicJWK(key.Public())
	if err != nil {
		return "", err
	}
	u, err := url.Parse(requestURL)
	if err != nil {
		return "", err
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	claims := jwt.MapClaims{
		"jti": randomID(),
		"htm": method,
		"htu": u.String(),
		"iat": iat.Unix(),
	}
	if accessToken != "" {
		claims["ath"] = tokenHash(accessToken)
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	t := jwt.NewWithClaims(signer, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = pub
	return t.SignedString(key)
}

// randomID returns 128 random bits, base64url.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return enc(b[:])
}
