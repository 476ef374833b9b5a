package auth

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestChallenge(t *testing.T) {
	t.Parallel()
	const md = "https://x/.well-known/oauth-protected-resource/mcp"
	maxAge := 5 * time.Second
	for _, tc := range []struct {
		name   string
		e      *Error
		scheme string
		md     string
		want   string
	}{
		{"insufficient scope", InsufficientScope([]string{"notes:read", "notes:write"}), "Bearer", md,
			`Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`},
		{"missing token", MissingToken([]string{"files:read"}), "Bearer", md,
			`Bearer scope="files:read", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`},
		{"missing token, nothing else", MissingToken(nil), "", "", `Bearer`},
		{"invalid token", InvalidToken(errors.New("expired at noon")), "Bearer", md,
			`Bearer error="invalid_token", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`},
		{"invalid request", InvalidRequest(nil), "bearer", "", `Bearer error="invalid_request"`},
		{"acr step-up", InsufficientAuthentication([]string{"urn:mfa", "phr"}, nil), "Bearer", md,
			`Bearer error="insufficient_user_authentication", acr_values="urn:mfa phr", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"`},
		{"max_age step-up", InsufficientAuthentication(nil, &maxAge), "Bearer", "",
			`Bearer error="insufficient_user_authentication", max_age="5"`},
		{"dpop proof", InvalidDPoPProof(errors.New("bad htu")), "DPoP", md,
			`DPoP error="invalid_dpop_proof", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", algs="ES256 RS256 EdDSA"`},
		{"dpop missing token", MissingToken(nil), "dpop", "", `DPoP algs="ES256 RS256 EdDSA"`},
		{"description quoted", &Error{Status: 403, Code: CodeInsufficientScope, Description: `need "write" \ admin`,
			Scopes: []string{"w"}}, "Bearer", "",
			`Bearer error="insufficient_scope", error_description="need \"write\" \\ admin", scope="w"`},
		{"unknown scheme falls back", InvalidToken(nil), "Basic", "", `Bearer error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.e.Challenge(tc.scheme, tc.md); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestErrorBasics(t *testing.T) {
	t.Parallel()
	cause := errors.New("signature mismatch for kid k1")
	e := InvalidToken(cause)
	if e.Error() != "auth: 401 invalid_token" {
		t.Fatalf("Error() = %q", e.Error())
	}
	if !errors.Is(e, cause) || e.Unwrap() != cause {
		t.Fatal("cause not reachable through Unwrap")
	}
	if !errors.Is(e, &Error{Code: CodeInvalidToken}) || errors.Is(e, &Error{Code: CodeInsufficientScope}) ||
		errors.Is(e, &Error{Code: CodeInvalidToken, Status: http.StatusForbidden}) {
		t.Fatal("Is by code and status")
	}
	if got := MissingToken(nil).Error(); got != "auth: 401 credentials required" {
		t.Fatalf("Error() = %q", got)
	}
	if InsufficientScope(nil).Status != http.StatusForbidden || InvalidRequest(nil).Status != http.StatusBadRequest {
		t.Fatal("statuses")
	}
	if AsError(errors.New("x")) != nil || AsError(errors.Join(errors.New("y"), e)) != e {
		t.Fatal("AsError")
	}
	if got := DPoPAlgorithms(); len(got) != 3 || got[0] != "ES256" {
		t.Fatalf("DPoPAlgorithms() = %v", got)
	}
}
