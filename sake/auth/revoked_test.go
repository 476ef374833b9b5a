package auth

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// A client credentials token names the client as its subject (RFC 9068
// §2.2): it is the machine client acting for itself, owning what its
// client id owns, not what a person of that name owns.
func TestJWTSubjectThatIsTheClient(t *testing.T) {
	t.Parallel()
	v := staticVerifier(t, nil)
	c := claimsAt(t0)
	c["sub"] = "client-1"
	id, err := v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c)))
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "" || id.ClientID != "client-1" || id.Owner() != "client:client-1" {
		t.Fatalf("subject %q client %q owner %q, want the machine client client:client-1", id.Subject, id.ClientID, id.Owner())
	}
	if id.Claims["sub"] != "client-1" {
		t.Fatalf("the sub claim is gone from Claims: %v", id.Claims)
	}
	// A person's token keeps its subject.
	id, err = v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", claimsAt(t0))))
	if err != nil || id.Subject != "alice" || id.Owner() != "sub:alice" {
		t.Fatalf("person: %+v %v", id, err)
	}
}

func TestJWTRevoked(t *testing.T) {
	t.Parallel()
	boom := errors.New("revocation list unavailable")
	var asked map[string]any
	v := staticVerifier(t, func(c *JWTConfig) {
		c.Revoked = func(_ context.Context, claims map[string]any) (bool, error) {
			asked = claims
			switch claims["jti"] {
			case "revoked":
				return true, nil
			case "unknown":
				return false, boom
			}
			return false, nil
		}
	})
	tok := func(jti string) *TokenRequest {
		c := claimsAt(t0)
		c["jti"] = jti
		return bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c))
	}
	if id, err := v.Verify(context.Background(), tok("live")); err != nil || id.Subject != "alice" || asked["jti"] != "live" {
		t.Fatalf("live token: %+v %v (asked %v)", id, err, asked)
	}
	_, err := v.Verify(context.Background(), tok("revoked"))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
	_, err = v.Verify(context.Background(), tok("unknown"))
	if !errors.Is(err, boom) || AsError(err) != nil {
		t.Fatalf("err = %v, want a plain (unavailable) error", err)
	}
	// A token that fails another check never reaches the list.
	asked = nil
	c := claimsAt(t0)
	c["iss"] = "https://elsewhere.example"
	_, err = v.Verify(context.Background(), bearer(sign(t, jwt.SigningMethodRS256, rsaKey(), "rsa", c)))
	wantAuthError(t, err, http.StatusUnauthorized, CodeInvalidToken)
	if asked != nil {
		t.Fatal("the revocation list was asked about a token that failed verification")
	}
}
