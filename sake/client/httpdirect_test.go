package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

// userinfoAuthorizer puts credentials in each request's URL, as a
// signing scheme may.
type userinfoAuthorizer struct{}

func (userinfoAuthorizer) Authorize(_ context.Context, req *http.Request) error {
	req.URL.User = url.UserPassword("bob", "pw2")
	return nil
}

func (userinfoAuthorizer) Challenged(context.Context, *http.Request, *http.Response, int) (bool, error) {
	return false, nil
}

// TestHTTPKeepsWhatTheHTTPClientAdds: whether a request goes through
// http.Client.Do or straight to its transport, it carries what the
// client adds: the cookies of its jar, Basic credentials for the
// endpoint's userinfo or a URL's an Authorizer set; and the error of a
// request that cannot be sent names its method and endpoint, secrets
// hidden, as Do's errors do.
func TestHTTPKeepsWhatTheHTTPClientAdds(t *testing.T) {
	t.Parallel()
	srv, _ := newKitServer(t)
	h := plug.New(srv)
	var mu sync.Mutex
	var cookies, basics []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if c, err := r.Cookie("affinity"); err == nil {
			cookies = append(cookies, c.Value)
		}
		if u, p, ok := r.BasicAuth(); ok {
			basics = append(basics, u+":"+p)
		}
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "affinity", Value: "node-2"})
		h.ServeHTTP(w, r)
	}))
	defer func() { ts.Close(); h.Close() }()
	call := func(endpoint string, hc *http.Client, opts ...client.HTTPOption) {
		t.Helper()
		c, err := client.Connect(t.Context(), client.HTTP(endpoint, hc, opts...))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	reset := func() {
		mu.Lock()
		cookies, basics = nil, nil
		mu.Unlock()
	}

	jar, _ := cookiejar.New(nil)
	call(ts.URL+"/mcp", &http.Client{Jar: jar, Transport: ts.Client().Transport})
	mu.Lock()
	if len(cookies) == 0 || cookies[0] != "node-2" {
		t.Errorf("the jar's cookie was not sent: %q", cookies)
	}
	mu.Unlock()

	reset()
	u, _ := url.Parse(ts.URL)
	call("http://alice:pw@"+u.Host+"/mcp", ts.Client())
	call(ts.URL+"/mcp", ts.Client(), client.WithAuthorizer(userinfoAuthorizer{}))
	mu.Lock()
	if !containsAll(basics, "alice:pw", "bob:pw2") || len(cookies) != 0 {
		t.Errorf("Basic credentials %q, cookies %q: want alice's and bob's, no cookie", basics, cookies)
	}
	mu.Unlock()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the connection is refused
	_, err = client.Connect(t.Context(), client.HTTP("http://"+addr+"/mcp?key=q-s3cret", ts.Client()))
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) || ue.Op != "Post" || strings.Contains(err.Error(), "q-s3cret") || !strings.Contains(err.Error(), `Post "http://`+addr+`/mcp?key=`) {
		t.Errorf("the error of a refused connection: %v", err)
	}
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}
