package proxy_test

import (
	"net/http"
	"os"
	"testing"
)

// TestMain gives http.DefaultClient, which the tests' clients use, a
// transport of its own: every httptest.Server.Close closes the idle
// connections of http.DefaultTransport, which would break a request of a
// parallel test that has just picked one.
func TestMain(m *testing.M) {
	http.DefaultClient.Transport = http.DefaultTransport.(*http.Transport).Clone()
	os.Exit(m.Run())
}
