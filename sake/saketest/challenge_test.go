package saketest

import (
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestHTTPErrorUnwrapsTheChallenge(t *testing.T) {
	t.Parallel()
	e := &HTTPError{StatusCode: 401, Challenge: `Bearer error="insufficient_user_authentication", acr_values="urn:mfa", max_age="300", resource_metadata="https://x.test/m"`}
	var ae *protocol.InsufficientAuthenticationError
	if !errors.As(e, &ae) || ae.ACRValues[0] != "urn:mfa" || ae.MaxAge == nil || ae.MaxAge.Seconds() != 300 || ae.ResourceMetadata != "https://x.test/m" {
		t.Errorf("unwrapped %+v", ae)
	}
	plain := &HTTPError{StatusCode: 401, Challenge: `Bearer resource_metadata="https://x.test/m"`}
	var se *protocol.InsufficientScopeError
	if errors.As(plain, &se) || errors.As(plain, &ae) {
		t.Error("a challenge without an error code unwrapped to an authorization error")
	}
}
