package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// panicLogin is the tests' login with a bug: the method named by on
// panics; the others answer as fakeLogin does.
type panicLogin struct {
	*fakeLogin
	mu sync.Mutex
	on string
}

func (l *panicLogin) set(on string) { l.mu.Lock(); l.on = on; l.mu.Unlock() }

func (l *panicLogin) check(method string) {
	l.mu.Lock()
	on := l.on
	l.mu.Unlock()
	if on == method {
		panic("login bug in " + method)
	}
}

func (l *panicLogin) Current(r *http.Request) (*Authentication, error) {
	l.check("Current")
	return l.fakeLogin.Current(r)
}

func (l *panicLogin) LoginURL(r *http.Request, req LoginRequest) string {
	l.check("LoginURL")
	return l.fakeLogin.LoginURL(r, req)
}

func (l *panicLogin) Lookup(ctx context.Context, subject string) (*Subject, error) {
	l.check("Lookup")
	return l.fakeLogin.Lookup(ctx, subject)
}

func (l *panicLogin) Granted(*http.Request, string, string) error {
	l.check("Granted")
	return nil
}

// logBuffer collects what the server logs.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// panicHarness is a harness whose login is a panicLogin, logging into a
// buffer.
func panicHarness(t *testing.T, mod ...func(*Config)) (*harness, *panicLogin, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	var pl *panicLogin
	h := newHarness(t, append([]func(*Config){func(c *Config) {
		pl = &panicLogin{fakeLogin: c.Login.(*fakeLogin)}
		c.Login = pl
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}}, mod...)...)
	return h, pl, logs
}

// wantLogged checks the panic and its stack were logged.
func wantLogged(t *testing.T, logs *logBuffer, what string) {
	t.Helper()
	s := logs.String()
	if !strings.Contains(s, what+" panicked") || !strings.Contains(s, "stack=") || !strings.Contains(s, "bug") {
		t.Fatalf("log %q lacks %q, the panic or its stack", s, what)
	}
}

// wantPage checks a 500 error page that says nothing of the panic.
func wantPage(t *testing.T, resp *http.Response, body string) {
	t.Helper()
	if resp.StatusCode != http.StatusInternalServerError || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("got %d %s, want a 500 page", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "bug") || strings.Contains(body, "goroutine") || !strings.Contains(body, ErrServerError) {
		t.Fatalf("page %s", body)
	}
}

// wantJSON checks a 500 server_error that says nothing of the panic.
func wantJSON(t *testing.T, h *harness, resp *http.Response, body map[string]any) {
	t.Helper()
	h.wantError(resp, body, http.StatusInternalServerError, ErrServerError)
	if d, _ := body["error_description"].(string); strings.Contains(d, "bug") {
		t.Fatalf("the panic reached the client: %v", body)
	}
}

// codes counts stored authorization codes.
func (h *harness) codes() int {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	n := 0
	for _, c := range h.store.creds {
		if c.Kind == KindCode {
			n++
		}
	}
	return n
}

func TestRegistrationHooksPanic(t *testing.T) {
	t.Parallel()
	for name, mod := range map[string]func(*Config){
		"Config.Registration": func(c *Config) {
			c.Registration = func(context.Context, *http.Request, *Client) error { panic("policy bug") }
		},
		"Config.RegistrationAddress": func(c *Config) { c.RegistrationAddress = func(*http.Request) string { panic("proxy bug") } },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, _, logs := panicHarness(t, mod)
			req, _ := http.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(publicRegistration))
			req.Header.Set("Content-Type", "application/json")
			resp, body := h.do(req)
			wantJSON(t, h, resp, body)
			wantLogged(t, logs, name)
			if n := h.dynamicClients(); n != 0 {
				t.Fatalf("%d clients registered", n)
			}
		})
	}
}

func TestLoginPanicsOnBrowserPages(t *testing.T) {
	t.Parallel()
	t.Run("Current", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		pl.set("Current")
		_, challenge := pkce()
		resp, body := h.get(h.url(pathAuthorize) + "?" + authParams(challenge).Encode())
		wantPage(t, resp, body)
		wantLogged(t, logs, "Login.Current")
		if h.codes() != 0 {
			t.Fatal("a code was issued")
		}
	})
	t.Run("LoginURL", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		pl.set("LoginURL")
		_, challenge := pkce()
		resp, body := h.get(h.url(pathAuthorize) + "?" + authParams(challenge).Encode())
		wantPage(t, resp, body)
		wantLogged(t, logs, "Login.LoginURL")
		h.store.mu.Lock()
		defer h.store.mu.Unlock()
		for _, c := range h.store.creds {
			if c.Kind == KindRequest && c.Grant.LoginTried {
				t.Fatal("the request was marked as sent to the login")
			}
		}
	})
	t.Run("Lookup", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		h.signIn("alice", "", time.Now())
		pl.set("Lookup")
		_, challenge := pkce()
		resp, body := h.get(h.url(pathAuthorize) + "?" + authParams(challenge).Encode())
		wantPage(t, resp, body)
		wantLogged(t, logs, "Login.Lookup")
		if h.codes() != 0 {
			t.Fatal("a code was issued")
		}
	})
	t.Run("Granted", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		h.signIn("alice", "", time.Now())
		f := h.consentForm(authParams(s256(randomToken(48))))
		f.Set("decision", "allow")
		pl.set("Granted")
		resp, _ := h.postForm(h.url(pathConsent), f)
		// The redirect URI is verified by now: the error goes back to it.
		if q := h.redirectParams(resp, publicCB); q.Get("error") != ErrServerError || q.Get("code") != "" ||
			strings.Contains(q.Get("error_description"), "bug") {
			t.Fatalf("callback %v", q)
		}
		wantLogged(t, logs, "Login.Granted")
		if h.codes() != 0 {
			t.Fatal("a code was issued")
		}
	})
	t.Run("device page", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		pl.set("LoginURL")
		resp, body := h.get(h.url(pathDevice))
		wantPage(t, resp, body)
		wantLogged(t, logs, "Login.LoginURL")
	})
}

func TestDeviceDecisionLookupPanics(t *testing.T) {
	t.Parallel()
	h, pl, logs := panicHarness(t)
	_, da := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}, "scope": {"notes:read"}})
	h.signIn("alice", "", time.Now())
	_, page := h.get(da["verification_uri_complete"].(string))
	f := hidden(page)
	f.Set("decision", "allow")
	pl.set("Lookup")
	resp, m := h.postForm(h.url(pathDevice), f)
	wantPage(t, resp, m["_body"].(string))
	wantLogged(t, logs, "Login.Lookup")
	pl.set("")
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {grantDevice}, "device_code": {da["device_code"].(string)}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrAuthorizationPending)
	h.noneIssued()
}

func TestLookupPanicsAtTokenEndpoints(t *testing.T) {
	t.Parallel()
	t.Run("code", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		h.signIn("alice", "", time.Now())
		verifier, challenge := pkce()
		p := authParams(challenge)
		p.Set("scope", "openid notes:read")
		code := h.code(p)
		pl.set("Lookup")
		resp, body := h.redeem(code, verifier)
		wantJSON(t, h, resp, body)
		wantLogged(t, logs, "Login.Lookup")
		h.noneIssued()
	})
	t.Run("refresh", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		access, refresh := h.userTokens("notes:read", resourceA)
		a0, r0 := h.issued()
		pl.set("Lookup")
		resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {publicID}})
		wantJSON(t, h, resp, body)
		wantLogged(t, logs, "Login.Lookup")
		if a1, r1 := h.issued(); a1 != a0 || r1 != r0 {
			t.Fatal("tokens were issued")
		}
		// A bug in the login is no reason to revoke the authorization.
		if _, ok := h.as.ownAccessToken(context.Background(), access); !ok {
			t.Fatal("the authorization was revoked")
		}
		// Nor is the refresh token spent: once the login works again, it
		// refreshes.
		pl.set("")
		resp, body = h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {publicID}})
		if resp.StatusCode != 200 || body["refresh_token"] == nil {
			t.Fatalf("refresh after the panic: %d %v", resp.StatusCode, body)
		}
	})
	t.Run("introspect", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		access, _ := h.userTokens("notes:read", resourceA)
		pl.set("Lookup")
		resp, body := h.postForm(h.url(pathIntrospect), url.Values{"token": {access}}, confID, confSecret)
		wantJSON(t, h, resp, body)
		wantLogged(t, logs, "Login.Lookup")
	})
	t.Run("userinfo", func(t *testing.T) {
		t.Parallel()
		h, pl, logs := panicHarness(t)
		access, _ := h.userTokens("openid notes:read", resourceA)
		pl.set("Lookup")
		req, _ := http.NewRequest(http.MethodGet, h.url(pathUserinfo), nil)
		req.Header.Set("Authorization", "Bearer "+access)
		resp, body := h.do(req)
		wantJSON(t, h, resp, body)
		wantLogged(t, logs, "Login.Lookup")
	})
}

// panicStore is a Store with a bug in Consume.
type panicStore struct{ *MemoryStore }

func (panicStore) Consume(context.Context, string) (*Credential, error) { panic("store bug") }

// A panic anywhere else in a handler (here the Store) is answered 500
// too, as JSON or as a page, and logged.
func TestHandlerPanicsAreAnswered(t *testing.T) {
	t.Parallel()
	h, _, logs := panicHarness(t, func(c *Config) { c.Store = panicStore{c.Store.(*MemoryStore)} })
	resp, body := h.redeem("some-code", "some-verifier-some-verifier-some-verifier-0123")
	wantJSON(t, h, resp, body)
	if s := logs.String(); !strings.Contains(s, "panic serving "+DefaultPrefix+pathToken) || !strings.Contains(s, "store bug") {
		t.Fatalf("log %q", s)
	}
	h.signIn("alice", "", time.Now())
	resp, m := h.postForm(h.url(pathConsent), url.Values{"request": {"r"}, "csrf": {h.as.csrfFor("r", "alice")}})
	wantPage(t, resp, m["_body"].(string))
}

func (l *panicLogin) Revoking(ctx context.Context, family string) func() {
	l.check("Revoking")
	return func() { l.check("revoked") }
}

// A panic in a GrantRevoker is logged and the revocation goes on.
func TestRevokingPanics(t *testing.T) {
	t.Parallel()
	for on, logged := range map[string]string{"Revoking": "Login.Revoking", "revoked": "Login.Revoking's function"} {
		t.Run(on, func(t *testing.T) {
			t.Parallel()
			h, pl, logs := panicHarness(t)
			access, refresh := h.userTokens("notes:read", resourceA)
			pl.set(on)
			resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {refresh}, "client_id": {publicID}})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("revoke: %d", resp.StatusCode)
			}
			if _, ok := h.as.ownAccessToken(context.Background(), access); ok {
				t.Fatal("the authorization was not revoked")
			}
			wantLogged(t, logs, logged)
		})
	}
}

// revokerLogin records what the store held when it was told.
type revokerLogin struct {
	*fakeLogin
	store  *MemoryStore
	access string // hash of an access token of the family
	events chan string
}

func (l *revokerLogin) Revoking(ctx context.Context, family string) func() {
	c, _ := l.store.Credential(ctx, l.access)
	l.events <- "before " + family + " revoked=" + boolString(c.Revoked)
	return func() {
		c, _ := l.store.Credential(ctx, l.access)
		l.events <- "after " + family + " revoked=" + boolString(c.Revoked)
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// A GrantRevoker hears of each revocation of a family before and after
// it is stored, and only once the family has one.
func TestGrantRevokerIsTold(t *testing.T) {
	t.Parallel()
	rl := &revokerLogin{events: make(chan string, 4)}
	h := newHarness(t, func(c *Config) {
		rl.fakeLogin, rl.store = c.Login.(*fakeLogin), c.Store.(*MemoryStore)
		c.Login = rl
	})
	access, refresh := h.userTokens("notes:read", resourceA)
	claims, rec, ok := h.as.ownAccessRecord(context.Background(), access)
	if !ok {
		t.Fatal("no access token")
	}
	rl.access = hashHandle(stringOf(claims["jti"]))
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {"unknown"}, "client_id": {publicID}}); resp.StatusCode != 200 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {refresh}, "client_id": {publicID}}); resp.StatusCode != 200 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	want := []string{"before " + rec.Family + " revoked=false", "after " + rec.Family + " revoked=true"}
	for _, w := range want {
		if got := <-rl.events; got != w {
			t.Fatalf("told %q, want %q", got, w)
		}
	}
	select {
	case e := <-rl.events:
		t.Fatalf("told %q more", e)
	default:
	}
}

// A panic in Config.Metadata.Allow is answered by the guard of the
// route: an error page at the authorization endpoint.
func TestMetadataAllowPanics(t *testing.T) {
	t.Parallel()
	h, _, logs := panicHarness(t, func(c *Config) {
		c.Metadata.Allow = func(*url.URL) bool { panic("trust bug") }
	})
	_, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", "https://app.example/client.json")
	p.Set("redirect_uri", "https://app.example/cb")
	resp, body := h.get(h.url(pathAuthorize) + "?" + p.Encode())
	wantPage(t, resp, body)
	if s := logs.String(); !strings.Contains(s, "panic serving "+DefaultPrefix+pathAuthorize) || !strings.Contains(s, "trust bug") {
		t.Fatalf("log %q", s)
	}
}

// A panic in Login.Lookup when the device polls leaves its approved code
// for the next poll.
func TestDeviceGrantLookupPanics(t *testing.T) {
	t.Parallel()
	h, pl, logs := panicHarness(t)
	_, da := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}, "scope": {"notes:read"}})
	h.signIn("alice", "", time.Now())
	_, page := h.get(da["verification_uri_complete"].(string))
	f := hidden(page)
	f.Set("decision", "allow")
	if resp, m := h.postForm(h.url(pathDevice), f); resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, m)
	}
	poll := url.Values{"grant_type": {grantDevice}, "device_code": {da["device_code"].(string)}, "client_id": {publicID}}
	pl.set("Lookup")
	resp, body := h.postForm(h.url(pathToken), poll)
	wantJSON(t, h, resp, body)
	wantLogged(t, logs, "Login.Lookup")
	h.noneIssued()
	pl.set("")
	if resp, body := h.postForm(h.url(pathToken), poll); resp.StatusCode != 200 || body["access_token"] == nil {
		t.Fatalf("poll after the panic: %d %v", resp.StatusCode, body)
	}
}
