package saketest

import (
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

func TestParseChallenge(t *testing.T) {
	t.Parallel()
	ch, ok := ParseChallenge(`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x.test/.well-known/oauth-protected-resource/mcp", realm=mcp, error_description="say \"please\""`)
	if !ok || ch.Scheme != "Bearer" || ch.Params["scope"] != "a b" || ch.Params["realm"] != "mcp" ||
		ch.Params["resource_metadata"] != "https://x.test/.well-known/oauth-protected-resource/mcp" || ch.Params["error_description"] != `say "please"` {
		t.Errorf("parsed %+v, %v", ch, ok)
	}
	if _, ok := ParseChallenge(""); ok {
		t.Error("an empty header parsed")
	}
	if ch, ok := ParseChallenge("Bearer"); !ok || ch.Scheme != "Bearer" || len(ch.Params) != 0 {
		t.Errorf("a bare scheme = %+v", ch)
	}
}

func TestHTTPErrorUnwrapsTheChallenge(t *testing.T) {
	t.Parallel()
	e := &HTTPError{StatusCode: 401, Challenge: `Bearer error="insufficient_user_authentication", acr_values="urn:mfa", max_age="300", resource_metadata="https://x.test/m"`}
	var ae *sake.InsufficientAuthenticationError
	if !errors.As(e, &ae) || ae.ACRValues[0] != "urn:mfa" || ae.MaxAge == nil || ae.MaxAge.Seconds() != 300 || ae.ResourceMetadata != "https://x.test/m" {
		t.Errorf("unwrapped %+v", ae)
	}
	plain := &HTTPError{StatusCode: 401, Challenge: `Bearer resource_metadata="https://x.test/m"`}
	var se *sake.InsufficientScopeError
	if errors.As(plain, &se) || errors.As(plain, &ae) {
		t.Error("a challenge without an error code unwrapped to an authorization error")
	}
}
