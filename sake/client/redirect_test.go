package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// dpopAuthorizer puts a DPoP-bound token and a proof on every request.
type dpopAuthorizer struct{}

func (dpopAuthorizer) Authorize(_ context.Context, req *http.Request) error {
	req.Header.Set("Authorization", "DPoP secret-token")
	req.Header.Set("DPoP", "secret-proof")
	return nil
}

func (dpopAuthorizer) Challenged(context.Context, *http.Request, *http.Response, int) (bool, error) {
	return false, nil
}

// credentialSink is another origin: it serves MCP too, and records the
// credentials that reach it.
type credentialSink struct {
	mu       sync.Mutex
	requests int
	seen     []string
	h        http.Handler
}

func (s *credentialSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	for _, k := range []string{"Authorization", "DPoP"} {
		if v := r.Header.Get(k); v != "" {
			s.seen = append(s.seen, k+": "+v)
		}
	}
	s.mu.Unlock()
	s.h.ServeHTTP(w, r)
}

func (s *credentialSink) report() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, append([]string(nil), s.seen...)
}

// redirecting is an endpoint that sends the requests of the given methods
// to target with status, and serves the others itself.
func redirecting(t *testing.T, status int, target string, methods ...string) string {
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, m := range methods {
			if r.Method == m {
				w.Header().Set("Location", target)
				w.WriteHeader(status)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); h.Close() })
	return ts.URL
}

func newSink(t *testing.T) (*credentialSink, string) {
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	sink := &credentialSink{h: h}
	ts := httptest.NewServer(sink)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return sink, ts.URL
}

func TestRedirectedRequestsKeepTheirCredentials(t *testing.T) {
	auths := []struct {
		name string
		opt  client.HTTPOption
	}{
		{"bearer", client.BearerToken("secret-token")},
		{"dpop", client.WithAuthorizer(dpopAuthorizer{})},
	}
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, a := range auths {
			for _, e := range eras {
				t.Run(http.StatusText(status)+"/"+a.name+"/"+e.Name, func(t *testing.T) {
					t.Parallel()
					sink, other := newSink(t)
					// The same host on another port: another origin.
					endpoint := redirecting(t, status, other, http.MethodPost)
					_, err := client.Connect(t.Context(), client.HTTP(endpoint, nil, a.opt), e.Opts...)
					var he *client.HTTPError
					if !errors.As(err, &he) || he.Status != status || !strings.Contains(err.Error(), other) {
						t.Fatalf("connect through a redirect = %v, want an HTTP %d error naming %s", err, status, other)
					}
					if n, seen := sink.report(); n != 0 || len(seen) != 0 {
						t.Fatalf("the other origin got %d requests, credentials %q", n, seen)
					}
				})
			}
		}
	}
}

func TestRedirectedSessionStreamKeepsItsCredentials(t *testing.T) {
	t.Parallel()
	sink, other := newSink(t)
	endpoint := redirecting(t, http.StatusTemporaryRedirect, other, http.MethodGet)
	c, err := client.Connect(t.Context(), client.HTTP(endpoint, nil, client.WithAuthorizer(dpopAuthorizer{})),
		client.ProtocolVersion(protocol.LegacyVersion))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Listen waits until the session's GET stream was answered.
	sub, err := c.Listen(t.Context(), client.Filter{ToolsListChanged: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatalf("the session works without its stream: %v", err)
	}
	if n, seen := sink.report(); n != 0 || len(seen) != 0 {
		t.Fatalf("the other origin got %d requests, credentials %q", n, seen)
	}
}
