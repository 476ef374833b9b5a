package server

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestDevLoginFlow(t *testing.T) {
	dev := NewDevLogin("dev", map[string]any{"name": "Developer"})
	ts := httptest.NewUnstartedServer(nil)
	as, err := New(Config{Issuer: "http://" + ts.Listener.Addr().String(), Login: dev, Resources: []string{resourceA},
		Clients: []Client{{ID: publicID, RedirectURIs: []string{publicCB}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	dev.Mount(r)
	ts.Config.Handler = r
	ts.Start()
	defer ts.Close()
	jar, _ := cookiejar.New(nil)
	h := &harness{t: t, as: as, ts: ts, jar: jar, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	verifier, challenge := pkce()
	params := authParams(challenge)
	params.Del("scope")
	resp, _ := h.get(h.url(pathAuthorize) + "?" + params.Encode())
	loginURL := ts.URL + resp.Header.Get("Location")
	if !strings.HasPrefix(resp.Header.Get("Location"), DefaultDevLoginPath+"?") {
		t.Fatalf("authorize sent the browser to %q", resp.Header.Get("Location"))
	}

	t.Run("a tampered return URL is refused", func(t *testing.T) {
		u, _ := url.Parse(loginURL)
		q := u.Query()
		q.Set("return_to", "https://evil.example/")
		resp, _ := h.postForm(ts.URL+DefaultDevLoginPath, q)
		if resp.StatusCode != http.StatusBadRequest || len(resp.Cookies()) != 0 || resp.Header.Get("Location") != "" {
			t.Fatalf("status %d, cookies %v, Location %q", resp.StatusCode, resp.Cookies(), resp.Header.Get("Location"))
		}
	})
	t.Run("a host that is not loopback is refused", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, loginURL, nil)
		req.Host = "notes.example.com"
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Fatalf("status %d, want 403", rec.Code)
		}
		req.AddCookie(&http.Cookie{Name: devCookie, Value: "1.x"})
		if a, _ := dev.Current(req); a != nil {
			t.Fatalf("signed in from elsewhere: %+v", a)
		}
	})

	t.Run("a forged cookie signs nobody in", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, loginURL, nil)
		req.RemoteAddr = "127.0.0.1:5000"
		req.Host = "127.0.0.1"
		req.AddCookie(&http.Cookie{Name: devCookie, Value: "1700000000." + mac([]byte("another key of 32 bytes........."), "session", "dev", "1700000000")})
		if a, _ := dev.Current(req); a != nil {
			t.Fatalf("signed in with a forged cookie: %+v", a)
		}
	})

	resp, page := h.get(loginURL)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Continue as dev") {
		t.Fatalf("login page: %d %s", resp.StatusCode, page)
	}
	resp, _ = h.postForm(ts.URL+DefaultDevLoginPath, hidden(page))
	if resp.StatusCode != http.StatusSeeOther || !as.IsReturnURL(resp.Header.Get("Location")) {
		t.Fatalf("after the button: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, page = h.get(resp.Header.Get("Location"))
	f := hidden(page)
	if resp.StatusCode != http.StatusOK || f.Get("csrf") == "" {
		t.Fatalf("consent page: %d %s", resp.StatusCode, page)
	}
	f.Set("decision", "allow")
	resp, _ = h.postForm(h.url(pathConsent), f)
	code := h.redirectParams(resp, publicCB).Get("code")
	resp, body := h.redeem(code, verifier)
	if resp.StatusCode != http.StatusOK || body["access_token"] == nil {
		t.Fatalf("token: %d %v", resp.StatusCode, body)
	}
}
