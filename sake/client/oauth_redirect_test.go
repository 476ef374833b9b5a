package client_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

// redirectingToken answers the token requests to from with a redirect to
// to, as an authorization server would, and sends the rest on.
type redirectingToken struct {
	from, to string
	status   int
	asked    atomic.Int32
}

func (r *redirectingToken) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.URL.String() == r.from {
		r.asked.Add(1)
		if req.Body != nil {
			_, _ = io.Copy(io.Discard, req.Body)
			req.Body.Close()
		}
		return &http.Response{StatusCode: r.status, Header: http.Header{"Location": {r.to}}, Body: http.NoBody, Request: req}, nil
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestRedirectedTokenRequestKeepsTheClientsSecrets(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			a := newTestAS(t)
			resource, _ := protected(t, a)
			var reached atomic.Int32
			sink := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
			t.Cleanup(sink.Close)
			rt := &redirectingToken{from: a.ts.URL + "/token", to: sink.URL + "/token", status: status}
			_, err := oauthClient(t, resource, client.OAuthConfig{ClientID: "pre", ClientSecret: "pre-secret",
				HTTPClient: &http.Client{Transport: rt}})
			if !errors.Is(err, client.ErrAuthorization) || !strings.Contains(err.Error(), sink.URL) {
				t.Fatalf("connect through a redirected token endpoint = %v, want an authorization error naming %s", err, sink.URL)
			}
			if rt.asked.Load() == 0 {
				t.Fatal("the flow never reached the token endpoint")
			}
			if n := reached.Load(); n != 0 {
				t.Fatalf("the other origin got %d token requests", n)
			}
		})
	}
}
