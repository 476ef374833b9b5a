package client_test

import (
	"net"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

// TestHTTPErrorsHideTheURLsSecrets: an error that names the endpoint
// (which is logged, by a gateway on every retry) hides its userinfo and
// query values.
func TestHTTPErrorsHideTheURLsSecrets(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the connection is refused
	_, err = client.Connect(t.Context(), client.HTTP("http://alice:pw-s3cret@"+addr+"/mcp?key=q-s3cret&x=1", nil))
	if err == nil {
		t.Fatal("connecting to a closed port succeeded")
	}
	msg := err.Error()
	for _, secret := range []string{"pw-s3cret", "q-s3cret", "alice"} {
		if strings.Contains(msg, secret) {
			t.Errorf("the error shows %q: %s", secret, msg)
		}
	}
	if !strings.Contains(msg, addr+"/mcp") {
		t.Errorf("the error does not name the endpoint: %s", msg)
	}
}
