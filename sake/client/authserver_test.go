package client_test

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

// autoLogin signs everyone in as ada: a login page that only sets how
// she signed in (urn:mfa when asked for it) and sends the browser back.
type autoLogin struct {
	mu     sync.Mutex
	acr    string
	when   time.Time
	logins atomic.Int32
}

func (l *autoLogin) Current(*http.Request) (*server.Authentication, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.when.IsZero() {
		return nil, nil
	}
	return &server.Authentication{Subject: "ada", ACR: l.acr, AuthTime: l.when}, nil
}

func (l *autoLogin) LoginURL(r *http.Request, req server.LoginRequest) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.logins.Add(1)
	l.acr = "urn:pwd"
	if slices.Contains(req.ACRValues, "urn:mfa") {
		l.acr = "urn:mfa"
	}
	l.when = time.Now()
	return req.ReturnTo
}

func (l *autoLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

var (
	formAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)
	formField  = regexp.MustCompile(`<input type="hidden" name="(request|csrf)" value="([^"]+)"`)
)

// consentingBrowser follows the authorization server's pages with a
// cookie jar and allows on the consent page, until the redirect to
// redirectURL.
func consentingBrowser(redirectURL string) func(ctx context.Context, authURL string) (*url.URL, error) {
	jar, _ := cookiejar.New(nil)
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		var got *url.URL
		hc := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if strings.HasPrefix(req.URL.String(), redirectURL) {
				got = req.URL
				return http.ErrUseLastResponse
			}
			return nil
		}}
		resp, err := hc.Get(authURL)
		for range 3 {
			if err != nil || got != nil {
				break
			}
			body := make([]byte, 64<<10)
			n, _ := resp.Body.Read(body)
			resp.Body.Close()
			page := string(body[:n])
			action := formAction.FindStringSubmatch(page)
			if action == nil {
				return nil, fmt.Errorf("no consent form on the page (%d): %.300s", resp.StatusCode, page)
			}
			form := url.Values{"decision": {"allow"}}
			for _, m := range formField.FindAllStringSubmatch(page, -1) {
				form.Set(m[1], html.UnescapeString(m[2]))
			}
			target, _ := resp.Request.URL.Parse(html.UnescapeString(action[1]))
			resp, err = hc.PostForm(target.String(), form)
		}
		if err != nil {
			return nil, err
		}
		if got == nil {
			return nil, fmt.Errorf("the authorization server never redirected to %s", redirectURL)
		}
		return got, nil
	}
}

func TestOAuthAgainstTheAuthorizationServer(t *testing.T) {
	t.Parallel()
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			base := "http://" + ln.Addr().String()
			resource := base + "/mcp"
			login := &autoLogin{}
			now := time.Now()
			var clock atomic.Int64
			clock.Store(now.UnixNano())
			as, err := server.New(server.Config{Issuer: base, Login: login, Resources: []string{resource},
				Scopes: []server.Scope{{Name: "read"}, {Name: "write"}}, DefaultScopes: []string{"read"}})
			if err != nil {
				t.Fatal(err)
			}
			v, err := as.Verifier(resource)
			if err != nil {
				t.Fatal(err)
			}
			r := chi.NewRouter()
			as.Mount(r)
			r.Handle(auth.WellKnownPath(resource), as.ResourceMetadata(resource, "read").Handler())
			h := plug.New(sake.MustNew(vault{}), plug.Authorization(v, auth.MetadataURL(resource), "read"))
			defer h.Close()
			r.Handle("/mcp", h)
			ts := httptest.NewUnstartedServer(r)
			ts.Listener.Close()
			ts.Listener = ln
			ts.Start()
			defer ts.Close()

			redirect := "http://127.0.0.1:9/callback"
			store := client.MemoryTokenStore()
			cfg := client.OAuthConfig{Browser: consentingBrowser(redirect), RedirectURL: redirect, Store: store,
				OfflineAccess: true, Now: func() time.Time { return time.Unix(0, clock.Load()) }}
			c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(cfg))), e.Opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, tool := range []string{"peek", "store", "safe"} {
				if _, err := c.CallTool(t.Context(), tool, nil); err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
			}
			tok, _ := store.Load(t.Context(), resource)
			if tok == nil || !slices.Contains(tok.Scopes, "write") || tok.RefreshToken == "" {
				t.Fatalf("token = %+v", tok)
			}
			if login.logins.Load() < 2 {
				t.Fatalf("the step-up of the sign-in did not sign in again (%d sign-ins)", login.logins.Load())
			}
			// A token about to expire is refreshed before use.
			clock.Store(tok.Expiry.Add(-10 * time.Second).UnixNano())
			if _, err := c.CallTool(t.Context(), "peek", nil); err != nil {
				t.Fatal(err)
			}
			if nt, _ := store.Load(t.Context(), resource); nt.AccessToken == tok.AccessToken || nt.RefreshToken == tok.RefreshToken {
				t.Fatal("the token was not refreshed (and its refresh token not rotated)")
			}
		})
	}
}
