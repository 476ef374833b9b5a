package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth/server"
)

func TestSignInAndUpstreamToken(t *testing.T) {
	clk := newTestClock()
	h := newHarness(t, func(c *Config) { c.Now = clk.now })
	_, q := authorizeParams()
	at := h.toProvider(q)
	p := at.Query()
	for _, k := range []string{"client_id", "code_challenge", "state", "nonce", "redirect_uri"} {
		if p.Get(k) == "" {
			t.Errorf("the provider's authorization request lacks %s: %v", k, p)
		}
	}
	if p.Get("client_id") != h.op.clientID || p.Get("redirect_uri") != h.issuer+"/login/callback" ||
		p.Get("code_challenge_method") != "S256" || !strings.Contains(p.Get("scope"), "openid") {
		t.Fatalf("authorization request %v", p)
	}

	body := h.tokens()
	access := body["access_token"].(string)
	claims := jwtClaims(t, access)
	wantSub := h.op.issuer() + "#alice-1"
	if claims["sub"] != wantSub || claims["acr"] != "urn:mfa" {
		t.Fatalf("access token claims %v: want sub %s, acr urn:mfa", claims, wantSub)
	}
	id, err := h.identity(access)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := h.login.Token(context.Background(), id)
	if err != nil || !strings.HasPrefix(tok.AccessToken, "at-") {
		t.Fatalf("Token = %v, %v", tok, err)
	}
	if strings.Contains(access, tok.AccessToken) || strings.Contains(body["refresh_token"].(string), tok.AccessToken) {
		t.Fatal("the upstream token is in Sake's tokens")
	}

	t.Run("the browser's sign-in went to the authorization", func(t *testing.T) {
		if h.signedIn() {
			t.Fatal("the spent sign-in still counts: a second authorization would share its refresh token")
		}
	})

	t.Run("refreshed when expired", func(t *testing.T) {
		h.op.mu.Lock()
		h.op.expiresIn = 1
		h.op.mu.Unlock()
		first := h.tokens()
		id, err := h.identity(first["access_token"].(string))
		if err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Second)
		a, err := h.login.Token(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Second)
		b, err := h.login.Token(context.Background(), id)
		if err != nil || a.AccessToken == b.AccessToken {
			t.Fatalf("an expired upstream token was not refreshed: %v %v %v", a, b, err)
		}
		h.op.mu.Lock()
		refreshed := h.op.refreshed
		h.op.mu.Unlock()
		if refreshed < 2 {
			t.Fatalf("the provider saw %d refreshes", refreshed)
		}
	})

	t.Run("never logged", func(t *testing.T) {
		h.op.revokeAll() // refreshes fail from now on, and are logged
		_, _ = h.login.Token(context.Background(), id)
		h.login.cache.forget(wantSub)
		_, _ = h.login.Lookup(context.Background(), wantSub)
		logs := h.logs.String()
		if strings.Contains(logs, "at-") || strings.Contains(logs, "rt-") || strings.Contains(logs, tok.AccessToken) {
			t.Fatalf("a token was logged:\n%s", logs)
		}
	})

	t.Run("revoked with the authorization", func(t *testing.T) {
		resp, _ := h.post(h.issuer+"/oauth/revoke", url.Values{"token": {body["refresh_token"].(string)}, "client_id": {mcpClientID}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("revoke: %d", resp.StatusCode)
		}
		if _, err := h.login.Token(context.Background(), id); !errors.Is(err, ErrNoToken) {
			t.Fatalf("Token after revocation: %v, want ErrNoToken", err)
		}
	})

	t.Run("not for a caller without a token of this server", func(t *testing.T) {
		forged := *id
		forged.Claims = map[string]any{"jti": "made-up"}
		if _, err := h.login.Token(context.Background(), nil); !errors.Is(err, ErrNoToken) {
			t.Fatalf("nil identity: %v", err)
		}
		if _, err := h.login.Token(context.Background(), &forged); !errors.Is(err, ErrNoToken) {
			t.Fatalf("unknown jti: %v", err)
		}
	})
}

// TestCallbackRefusals: every spoiled answer is refused with a page, and
// nothing is issued: no session cookie, no upstream token stored.
func TestCallbackRefusals(t *testing.T) {
	spoilClaims := func(f func(c map[string]any)) func(*testProvider) {
		return func(p *testProvider) {
			p.spoil = func(c, _ map[string]any) string { f(c); return "RS256" }
		}
	}
	cases := []struct {
		name   string
		setup  func(p *testProvider)
		config func(*Config)
		status int
	}{
		{"wrong nonce", spoilClaims(func(c map[string]any) { c["nonce"] = "another" }), nil, http.StatusForbidden},
		{"no nonce", spoilClaims(func(c map[string]any) { delete(c, "nonce") }), nil, http.StatusForbidden},
		{"another audience", spoilClaims(func(c map[string]any) { c["aud"] = "someone-else" }), nil, http.StatusForbidden},
		{"several audiences without azp", spoilClaims(func(c map[string]any) { c["aud"] = []string{"sake-app", "other"} }), nil, http.StatusForbidden},
		{"another issuer", spoilClaims(func(c map[string]any) { c["iss"] = "https://evil.example" }), nil, http.StatusForbidden},
		{"expired", spoilClaims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() }), nil, http.StatusForbidden},
		{"alg none", func(p *testProvider) {
			p.spoil = func(_, h map[string]any) string { h["alg"] = "none"; return "none" }
		}, nil, http.StatusForbidden},
		{"HS256 keyed with the provider's public key", func(p *testProvider) {
			p.spoil = func(_, h map[string]any) string { h["alg"] = "HS256"; return "HS256-public" }
		}, nil, http.StatusForbidden},
		{"mix-up: iss of another provider", func(p *testProvider) { p.issOverride = "https://other-idp.example" }, nil, http.StatusBadRequest},
		{"mix-up: no iss from a provider that sends it", func(p *testProvider) { p.omitIss = true }, nil, http.StatusBadRequest},
		{"a refused code", func(p *testProvider) { p.secret = "changed" }, nil, http.StatusBadGateway},
		{"access_denied at the provider", func(p *testProvider) {
			p.answer = url.Values{"error": {"access_denied"}, "error_description": {"The person said no"}}
		}, nil, http.StatusForbidden},
		{"outside the allowed domain", nil, func(c *Config) { c.Allow = []Rule{AllowDomains("corp.example")} }, http.StatusForbidden},
		{"unverified email in the allowed domain", spoilClaims(func(c map[string]any) {
			c["email"], c["email_verified"] = "alice@corp.example", false
		}), func(c *Config) { c.Allow = []Rule{AllowDomains("corp.example")} }, http.StatusForbidden},
		{"hd from a provider that is not Google", spoilClaims(func(c map[string]any) {
			c["hd"], c["email"], c["email_verified"] = "corp.example", "mallory@elsewhere.example", true
		}), func(c *Config) { c.Allow = []Rule{AllowDomains("corp.example")} }, http.StatusForbidden},
		{"a rule that panics", nil, func(c *Config) {
			c.Allow = []Rule{func(context.Context, *Person) error { panic("boom") }}
		}, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mods []func(*Config)
			if tc.config != nil {
				mods = append(mods, tc.config)
			}
			h := newHarness(t, mods...)
			if tc.setup != nil {
				tc.setup(h.op)
			}
			_, q := authorizeParams()
			cb := h.fromProvider(h.toProvider(q))
			resp, body := h.get(cb)
			if resp.StatusCode != tc.status || resp.Header.Get("Location") != "" || !strings.Contains(body, "<h1") {
				t.Fatalf("callback: %d, Location %q, body %s; want a %d page", resp.StatusCode, resp.Header.Get("Location"), body, tc.status)
			}
			if tc.name == "access_denied at the provider" && !strings.Contains(body, "The person said no") {
				t.Fatalf("the provider's error is not shown: %s", body)
			}
			h.nothingIssued()
		})
	}
}

func TestCallbackState(t *testing.T) {
	t.Run("wrong state", func(t *testing.T) {
		h := newHarness(t)
		_, q := authorizeParams()
		cb, _ := url.Parse(h.fromProvider(h.toProvider(q)))
		v := cb.Query()
		v.Set("state", randomToken(32))
		cb.RawQuery = v.Encode()
		resp, _ := h.get(cb.String())
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", resp.StatusCode)
		}
		h.nothingIssued()
	})
	t.Run("replayed state", func(t *testing.T) {
		h := newHarness(t)
		_, q := authorizeParams()
		cb := h.fromProvider(h.toProvider(q))
		u, _ := url.Parse(h.issuer + "/login")
		saved := h.jar.Cookies(u) // the state cookie, as an attacker who copied it
		resp, body := h.get(cb)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("first callback: %d %s", resp.StatusCode, body)
		}
		// Replay the same answer with the same state cookie in another
		// browser.
		h.jar, _ = newJar()
		h.browser.Jar = h.jar
		h.jar.SetCookies(u, saved)
		resp, _ = h.get(cb)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("replayed callback: status %d", resp.StatusCode)
		}
		if h.signedIn() {
			t.Fatal("the replay signed the other browser in")
		}
	})
	t.Run("no state cookie", func(t *testing.T) {
		h := newHarness(t)
		_, q := authorizeParams()
		cb := h.fromProvider(h.toProvider(q))
		h.jar, _ = newJar()
		h.browser.Jar = h.jar
		resp, _ := h.get(cb)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", resp.StatusCode)
		}
		h.nothingIssued()
	})
	t.Run("a forged start link", func(t *testing.T) {
		h := newHarness(t)
		resp, _ := h.get(h.issuer + "/login?r=" + randomToken(64))
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
}

func TestSessionCookie(t *testing.T) {
	h := newHarness(t)
	_, q := authorizeParams()
	h.signIn(q)
	if !h.signedIn() {
		t.Fatal("not signed in after the callback")
	}
	u, _ := url.Parse(h.issuer)
	var saved *http.Cookie
	for _, c := range h.jar.Cookies(u) {
		if c.Name == sessionCookie {
			saved = c
		}
	}
	if saved == nil {
		t.Fatal("no session cookie")
	}

	t.Run("forged", func(t *testing.T) {
		for _, v := range []string{randomToken(40), saved.Value[:len(saved.Value)-2] + "AA", ""} {
			req, _ := http.NewRequest(http.MethodGet, h.issuer, nil)
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: v})
			if a, _ := h.login.Current(req); a != nil {
				t.Fatalf("cookie %q signed in as %s", v, a.Subject)
			}
		}
	})

	resp, _ := h.post(h.issuer+"/login/logout", url.Values{})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	if h.signedIn() {
		t.Fatal("signed in after logout")
	}
	t.Run("replayed after logout", func(t *testing.T) {
		h.jar.SetCookies(u, []*http.Cookie{saved})
		if h.signedIn() {
			t.Fatal("the cookie from before the logout still signs in")
		}
		_, q := authorizeParams()
		resp, body := h.get(h.issuer + "/oauth/authorize?" + q.Encode())
		if loc := h.location(resp, body); !strings.HasPrefix(loc, h.issuer+"/login?r=") {
			t.Fatalf("authorize with the old cookie went to %s, not to the sign-in", loc)
		}
	})
}

func TestStepUpIsPassedOn(t *testing.T) {
	h := newHarness(t)
	_, q := authorizeParams()
	q.Set("acr_values", "urn:mfa urn:hwk")
	q.Set("max_age", "60")
	q.Set("prompt", "login")
	p := h.toProvider(q).Query()
	if p.Get("acr_values") != "urn:mfa urn:hwk" || p.Get("max_age") != "60" || p.Get("prompt") != "login" {
		t.Fatalf("the provider was asked %v", p)
	}
	resp, body := h.get(h.fromProvider(h.toProvider(q)))
	if !h.as.IsReturnURL(h.location(resp, body)) {
		t.Fatal("the step-up sign-in did not return to the consent")
	}
}

func TestLookupAsksTheProvider(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.LookupTTL = time.Nanosecond })
	body := h.tokens()
	sub := h.op.issuer() + "#alice-1"
	s, err := h.login.Lookup(context.Background(), sub)
	if err != nil || !s.Active || s.Claims["email"] != "alice@example.com" {
		t.Fatalf("Lookup = %+v, %v", s, err)
	}
	h.op.revokeAll()
	s, err = h.login.Lookup(context.Background(), sub)
	if err != nil || s.Active {
		t.Fatalf("Lookup after the provider revoked everything = %+v, %v; want inactive", s, err)
	}
	resp, rb := h.post(h.issuer+"/oauth/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {body["refresh_token"].(string)}, "client_id": {mcpClientID}})
	if resp.StatusCode != http.StatusBadRequest || rb["error"] != "invalid_grant" || rb["access_token"] != nil {
		t.Fatalf("refresh of a person the provider dropped: %d %v", resp.StatusCode, rb)
	}
	if s, _ := h.login.Lookup(context.Background(), "https://other.example#alice-1"); s == nil || s.Active {
		t.Fatal("a subject of another provider is active")
	}
}

func TestConfigErrors(t *testing.T) {
	store := server.NewMemoryStore()
	for name, cfg := range map[string]Config{
		"no provider":  {ClientID: "x", BaseURL: "https://a.example/login", Store: store},
		"no client id": {Provider: GitHub(), BaseURL: "https://a.example/login", Store: store},
		"no store":     {Provider: GitHub(), ClientID: "x", BaseURL: "https://a.example/login"},
		"bad base URL": {Provider: GitHub(), ClientID: "x", BaseURL: "/login", Store: store},
		"short secret": {Provider: GitHub(), ClientID: "x", BaseURL: "https://a.example/login", Store: store, Secret: []byte("short")},
		"negative TTL": {Provider: GitHub(), ClientID: "x", BaseURL: "https://a.example/login", Store: store, SessionTTL: -1},
		"no discovery": {Provider: OIDC("http://127.0.0.1:1"), ClientID: "x", BaseURL: "https://a.example/login", Store: store},
	} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

func TestUpstreamTokensBoundedPerSubject(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.TokensPerSubject = 2 })
	var ids []*sake.Identity
	for range 3 {
		body := h.tokens()
		id, err := h.identity(body["access_token"].(string))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := h.login.Token(context.Background(), ids[0]); !errors.Is(err, ErrNoToken) {
		t.Fatalf("the oldest of three authorizations with a bound of 2: %v, want ErrNoToken", err)
	}
	for _, id := range ids[1:] {
		if _, err := h.login.Token(context.Background(), id); err != nil {
			t.Fatalf("a recent authorization lost its token: %v", err)
		}
	}
}
