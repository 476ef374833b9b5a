package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// fakeLogin is the application's login in tests: a session cookie "sid"
// naming a sign-in; LoginURL points at a page the tests "visit" by
// calling signIn.
type fakeLogin struct {
	mu       sync.Mutex
	sessions map[string]*Authentication
	subjects map[string]*Subject
	asked    []LoginRequest
	base     string // where the login page is; default https://login.example
}

func newFakeLogin() *fakeLogin {
	return &fakeLogin{sessions: map[string]*Authentication{}, subjects: map[string]*Subject{
		"alice": {Active: true, Claims: map[string]any{"name": "Alice", "email": "alice@example.com", "email_verified": true}},
		"bob":   {Active: true, Claims: map[string]any{"name": "Bob"}},
	}}
}

func (l *fakeLogin) Current(r *http.Request) (*Authentication, error) {
	c, err := r.Cookie("sid")
	if err != nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.sessions[c.Value]
	if a == nil {
		return nil, nil
	}
	cp := *a
	return &cp, nil
}

func (l *fakeLogin) LoginURL(_ *http.Request, req LoginRequest) string {
	l.mu.Lock()
	l.asked = append(l.asked, req)
	l.mu.Unlock()
	base := l.base
	if base == "" {
		base = "https://login.example"
	}
	return base + "/signin?return=" + url.QueryEscape(req.ReturnTo)
}

func (l *fakeLogin) Lookup(_ context.Context, subject string) (*Subject, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.subjects[subject]
	if !ok {
		return nil, errors.New("no such subject")
	}
	cp := *s
	return &cp, nil
}

func (l *fakeLogin) setActive(subject string, active bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.subjects[subject].Active = active
}

func (l *fakeLogin) lastAsked() LoginRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asked[len(l.asked)-1]
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const (
	resourceA   = "https://mcp-a.example/mcp"
	resourceB   = "https://mcp-b.example/mcp"
	publicID    = "public-app"
	publicCB    = "http://127.0.0.1/callback"
	confID      = "confidential-app"
	confSecret  = "s3cret-of-the-confidential-app"
	confCB      = "https://app.example/cb"
	machineID   = "machine"
	machineSecr = "machine-secret-value-0123456789"
)

type harness struct {
	t      *testing.T
	as     *Server
	ts     *httptest.Server
	login  *fakeLogin
	store  *MemoryStore
	clock  *clock
	client *http.Client
	jar    *cookiejar.Jar
}

func newHarness(t *testing.T, mod ...func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, login: newFakeLogin(), clock: &clock{t: time.Now()}}
	h.store = NewMemoryStore(MemoryClock(h.clock.now))
	h.ts = httptest.NewUnstartedServer(nil)
	confHash, _ := HashSecret(confSecret)
	machineHash, _ := HashSecret(machineSecr)
	cfg := Config{
		Issuer:    "http://" + h.ts.Listener.Addr().String(),
		Login:     h.login,
		Store:     h.store,
		Resources: []string{resourceA, resourceB},
		Scopes:    []Scope{{"notes:read", "Read your notes"}, {"notes:write", "Change your notes"}},
		Clients: []Client{
			{ID: publicID, Name: "Public App", RedirectURIs: []string{publicCB},
				GrantTypes: []string{"authorization_code", "refresh_token", grantDevice}},
			{ID: confID, Name: "Confidential App", SecretHash: confHash, RedirectURIs: []string{confCB, "https://app.example/other"}},
			{ID: machineID, Name: "Machine", SecretHash: machineHash, GrantTypes: []string{"client_credentials"}},
		},
		Now:    h.clock.now,
		Logger: slog.New(slog.DiscardHandler),
	}
	for _, m := range mod {
		m(&cfg)
	}
	as, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.as = as
	r := chi.NewRouter()
	as.Mount(r)
	r.Get("/signin", h.signinPage)
	r.Post("/signin", h.signinPost)
	h.ts.Config.Handler = r
	h.ts.Start()
	t.Cleanup(h.ts.Close)
	h.jar, _ = cookiejar.New(nil)
	h.client = &http.Client{Jar: h.jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// signIn makes a session for subject and sets its cookie.
func (h *harness) signIn(subject, acr string, authTime time.Time) {
	sid := randomToken(12)
	h.login.mu.Lock()
	h.login.sessions[sid] = &Authentication{Subject: subject, ACR: acr, AMR: []string{"pwd"}, AuthTime: authTime}
	h.login.mu.Unlock()
	u, _ := url.Parse(h.ts.URL)
	h.jar.SetCookies(u, []*http.Cookie{{Name: "sid", Value: sid, Path: "/"}})
}

func (h *harness) url(path string) string { return h.ts.URL + DefaultPrefix + path }

func (h *harness) get(u string) (*http.Response, string) {
	h.t.Helper()
	resp, err := h.client.Get(u)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (h *harness) postForm(u string, form url.Values, basic ...string) (*http.Response, map[string]any) {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	return h.do(req)
}

func (h *harness) do(req *http.Request) (*http.Response, map[string]any) {
	h.t.Helper()
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(b) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &m); err != nil {
			h.t.Fatalf("body %q: %v", b, err)
		}
	}
	if m == nil {
		m = map[string]any{"_body": string(b)}
	}
	return resp, m
}

// pkce returns a verifier and its S256 challenge.
func pkce() (string, string) {
	v := randomToken(48)
	return v, s256(v)
}

// authParams are the usual parameters of the public client.
func authParams(challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {publicID}, "redirect_uri": {publicCB},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-1"},
		"scope": {"notes:read"}, "resource": {resourceA}}
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// hidden reads a page's hidden form fields.
func hidden(page string) url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(page, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// consentPage starts an authorization and returns the consent page's
// form (the person is signed in as alice).
func (h *harness) consentForm(params url.Values) url.Values {
	h.t.Helper()
	resp, body := h.get(h.url(pathAuthorize) + "?" + params.Encode())
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("authorize: status %d, Location %q, body %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	f := hidden(body)
	if f.Get("csrf") == "" || f.Get("request") == "" {
		h.t.Fatalf("no consent form in %s", body)
	}
	return f
}

// redirectParams reads a redirect's query, checking it goes to base.
func (h *harness) redirectParams(resp *http.Response, base string) url.Values {
	h.t.Helper()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
		h.t.Fatalf("status %d, want a redirect", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		h.t.Fatal(err)
	}
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != base {
		h.t.Fatalf("redirected to %q, want %q", got, base)
	}
	return loc.Query()
}

// code runs the browser part for alice with params and returns the code.
func (h *harness) code(params url.Values) string {
	h.t.Helper()
	resp, body := h.get(h.url(pathAuthorize) + "?" + params.Encode())
	if resp.StatusCode == http.StatusOK {
		// Consent asked (not remembered).
		f := hidden(body)
		f.Set("decision", "allow")
		resp, _ = h.postForm(h.url(pathConsent), f)
	}
	q := h.redirectParams(resp, params.Get("redirect_uri"))
	if q.Get("code") == "" || q.Get("iss") != h.as.Issuer() || q.Get("state") != params.Get("state") {
		h.t.Fatalf("callback params %v", q)
	}
	return q.Get("code")
}

// redeem exchanges a code for the public client.
func (h *harness) redeem(code, verifier string) (*http.Response, map[string]any) {
	return h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {publicCB}, "client_id": {publicID}, "resource": {resourceA}})
}

// issued counts stored access and refresh tokens.
func (h *harness) issued() (access, refresh int) {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	for _, c := range h.store.creds {
		switch c.Kind {
		case KindAccess:
			access++
		case KindRefresh:
			refresh++
		}
	}
	return
}

// wantError checks an RFC error answer and that no token was issued.
func (h *harness) wantError(resp *http.Response, body map[string]any, status int, code string) {
	h.t.Helper()
	if resp.StatusCode != status || body["error"] != code {
		h.t.Fatalf("got %d %v, want %d %s", resp.StatusCode, body, status, code)
	}
	if body["access_token"] != nil || body["refresh_token"] != nil {
		h.t.Fatalf("an error answer carries tokens: %v", body)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		h.t.Fatalf("Cache-Control %q", cc)
	}
}

// noneIssued checks that nothing was issued at all so far.
func (h *harness) noneIssued() {
	h.t.Helper()
	if a, r := h.issued(); a != 0 || r != 0 {
		h.t.Fatalf("%d access and %d refresh tokens were issued", a, r)
	}
}

func newECKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signinPage is the test application's login form (for the browser
// tests): a username is enough.
func (h *harness) signinPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><title>Sign in</title></head><body><main>
<form method="post" action="/signin"><input type="hidden" name="return" value="`+html.EscapeString(r.URL.Query().Get("return"))+`">
<label for="username">Username</label><input id="username" name="username">
<button type="submit" id="signin">Sign in</button></form></main></body></html>`)
}

func (h *harness) signinPost(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	sid := randomToken(12)
	h.login.mu.Lock()
	h.login.sessions[sid] = &Authentication{Subject: r.PostForm.Get("username"), ACR: "urn:pwd", AuthTime: h.clock.now()}
	h.login.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true})
	ret := r.PostForm.Get("return")
	if !h.as.IsReturnURL(ret) {
		ret = "/"
	}
	http.Redirect(w, r, ret, http.StatusSeeOther)
}
