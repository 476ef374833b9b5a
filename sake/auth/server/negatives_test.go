package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
)

func TestPKCENegatives(t *testing.T) {
	t.Parallel()
	t.Run("missing verifier", func(t *testing.T) {
		h := newHarness(t)
		h.signIn("alice", "", time.Now())
		_, challenge := pkce()
		resp, body := h.redeem(h.code(authParams(challenge)), "")
		h.wantError(resp, body, 400, ErrInvalidRequest)
		h.noneIssued()
	})
	t.Run("wrong verifier", func(t *testing.T) {
		h := newHarness(t)
		h.signIn("alice", "", time.Now())
		_, challenge := pkce()
		other, _ := pkce()
		resp, body := h.redeem(h.code(authParams(challenge)), other)
		h.wantError(resp, body, 400, ErrInvalidGrant)
		h.noneIssued()
	})
	for name, mod := range map[string]func(url.Values){
		"no challenge":    func(p url.Values) { p.Del("code_challenge"); p.Del("code_challenge_method") },
		"plain method":    func(p url.Values) { p.Set("code_challenge_method", "plain") },
		"no method":       func(p url.Values) { p.Del("code_challenge_method") },
		"short challenge": func(p url.Values) { p.Set("code_challenge", "abc") },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.signIn("alice", "", time.Now())
			_, challenge := pkce()
			p := authParams(challenge)
			mod(p)
			resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
			q := h.redirectParams(resp, publicCB)
			if q.Get("error") != ErrInvalidRequest || q.Get("code") != "" || q.Get("state") != "st-1" || q.Get("iss") != h.as.Issuer() {
				t.Fatalf("%v", q)
			}
			h.noneIssued()
		})
	}
}

func TestRedirectMismatch(t *testing.T) {
	t.Parallel()
	for name, redirect := range map[string]string{
		"other host":          "https://evil.example/callback",
		"other path":          "http://127.0.0.1/other",
		"loopback other host": "http://localhost/callback",
		"with fragment":       "http://127.0.0.1/callback#x",
		"extra query":         "http://127.0.0.1/callback?x=1",
		"prefix":              "http://127.0.0.1/callback/more",
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.signIn("alice", "", time.Now())
			_, challenge := pkce()
			p := authParams(challenge)
			p.Set("redirect_uri", redirect)
			resp, body := h.get(h.url(pathAuthorize) + "?" + p.Encode())
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(body, ErrInvalidRequest) {
				t.Fatalf("%d Location=%q", resp.StatusCode, resp.Header.Get("Location"))
			}
			h.noneIssued()
		})
	}
	t.Run("two registered, none given", func(t *testing.T) {
		h := newHarness(t)
		_, challenge := pkce()
		p := authParams(challenge)
		p.Set("client_id", confID)
		p.Del("redirect_uri")
		resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("unknown client is never redirected", func(t *testing.T) {
		h := newHarness(t)
		_, challenge := pkce()
		p := authParams(challenge)
		p.Set("client_id", "nobody")
		p.Set("redirect_uri", "https://evil.example/cb")
		resp, body := h.get(h.url(pathAuthorize) + "?" + p.Encode())
		if resp.StatusCode != 401 || resp.Header.Get("Location") != "" || !strings.Contains(body, ErrInvalidClient) {
			t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("token redirect_uri differs", func(t *testing.T) {
		h := newHarness(t)
		h.signIn("alice", "", time.Now())
		verifier, challenge := pkce()
		code := h.code(authParams(challenge))
		resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:9/callback"}, "client_id": {publicID}})
		h.wantError(resp, body, 400, ErrInvalidGrant)
		h.noneIssued()
	})
}

func TestReusedCodeRevokesWhatItIssued(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	code := h.code(authParams(challenge))
	resp, tok := h.redeem(code, verifier)
	if resp.StatusCode != 200 {
		t.Fatal(tok)
	}
	a1, r1 := h.issued()
	resp, body := h.redeem(code, verifier)
	h.wantError(resp, body, 400, ErrInvalidGrant)
	if a2, r2 := h.issued(); a2 != a1 || r2 != r1 {
		t.Fatalf("the replay issued tokens: %d/%d -> %d/%d", a1, r1, a2, r2)
	}
	// What the first redemption issued is revoked.
	if _, ok := h.as.ownAccessToken(context.Background(), tok["access_token"].(string)); ok {
		t.Fatal("the access token of a replayed code is still active")
	}
	resp, body = h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {tok["refresh_token"].(string)}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrInvalidGrant)
}

func TestExpiredCode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	code := h.code(authParams(challenge))
	h.clock.add(DefaultCodeTTL + time.Second)
	resp, body := h.redeem(code, verifier)
	h.wantError(resp, body, 400, ErrInvalidGrant)
	h.noneIssued()
}

func TestCodeOfAnotherClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	code := h.code(authParams(challenge))
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {publicCB}}, confID, confSecret)
	h.wantError(resp, body, 400, ErrInvalidGrant)
	h.noneIssued()
}

func TestReusedRefreshTokenRevokesFamily(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	_, tok := h.redeem(h.code(authParams(challenge)), verifier)
	rt1 := tok["refresh_token"].(string)
	refresh := func(rt string) (*http.Response, map[string]any) {
		return h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {publicID}})
	}
	resp, tok2 := refresh(rt1)
	if resp.StatusCode != 200 {
		t.Fatal(tok2)
	}
	a1, r1 := h.issued()
	// The old token again: refused, and nothing issued...
	resp, body := refresh(rt1)
	h.wantError(resp, body, 400, ErrInvalidGrant)
	if a2, r2 := h.issued(); a2 != a1 || r2 != r1 {
		t.Fatal("the replay issued tokens")
	}
	// ...and the whole family is revoked: the newest refresh token and
	// every access token.
	resp, body = refresh(tok2["refresh_token"].(string))
	h.wantError(resp, body, 400, ErrInvalidGrant)
	for _, at := range []any{tok["access_token"], tok2["access_token"]} {
		if _, ok := h.as.ownAccessToken(context.Background(), at.(string)); ok {
			t.Fatal("an access token of a revoked family is still active")
		}
	}
}

func TestForeignAudience(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	_, tok := h.redeem(h.code(authParams(challenge)), verifier)
	vb, _ := h.as.Verifier(resourceB)
	_, err := vb.Verify(context.Background(), &auth.TokenRequest{Token: tok["access_token"].(string)})
	if ae := auth.AsError(err); ae == nil || ae.Code != "invalid_token" {
		t.Fatalf("a token for A was accepted by B: %v", err)
	}
	// A resource the server does not serve: invalid_target.
	_, challenge = pkce()
	p := authParams(challenge)
	p.Set("resource", "https://elsewhere.example/mcp")
	resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
	if q := h.redirectParams(resp, publicCB); q.Get("error") != ErrInvalidTarget {
		t.Fatalf("%v", q)
	}
	// At the token endpoint, a resource outside the grant.
	verifier, challenge = pkce()
	code := h.code(authParams(challenge))
	a1, r1 := h.issued()
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {publicCB}, "client_id": {publicID}, "resource": {resourceB}})
	h.wantError(resp, body, 400, ErrInvalidTarget)
	if a2, r2 := h.issued(); a2 != a1 || r2 != r1 {
		t.Fatal("tokens issued")
	}
}

func TestCIMDPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	doc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer doc.Close()
	h := newHarness(t, func(c *Config) {
		c.Metadata = MetadataDocuments{TLS: doc.Client().Transport.(*http.Transport).TLSClientConfig}
	})
	h.signIn("alice", "", time.Now())
	for _, id := range []string{
		doc.URL + "/client.json", // 127.0.0.1
		"https://localhost:" + doc.Listener.Addr().(interface{ String() string }).String()[strings.LastIndex(doc.Listener.Addr().String(), ":")+1:] + "/c.json",
		"https://169.254.169.254/latest/meta-data", // link-local (cloud metadata)
		"https://10.0.0.1/client.json",             // private
		"https://[::1]:1/client.json",              // loopback v6
		"http://example.com/client.json",           // not https
		"https://example.com/",                     // no path
		"https://user:pw@example.com/client.json",  // credentials
	} {
		_, challenge := pkce()
		p := authParams(challenge)
		p.Set("client_id", id)
		resp, body := h.get(h.url(pathAuthorize) + "?" + p.Encode())
		if resp.StatusCode != 401 || resp.Header.Get("Location") != "" || !strings.Contains(body, ErrInvalidClient) {
			t.Fatalf("%s: %d %q", id, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the private address was fetched %d times", hits.Load())
	}
	h.noneIssued()
}

func TestCIMDDocumentChecks(t *testing.T) {
	t.Parallel()
	var body string
	doc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(body))
	}))
	defer doc.Close()
	h := newHarness(t, func(c *Config) {
		c.Metadata = MetadataDocuments{AllowPrivateAddresses: true, TLS: doc.Client().Transport.(*http.Transport).TLSClientConfig, MaxBytes: 512}
	})
	id := doc.URL + "/c.json"
	for i, b := range []string{
		`{"client_id":"https://other.example/c.json","client_name":"X","redirect_uris":["http://127.0.0.1/callback"]}`,
		`{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/callback"]}`,
		`{"client_id":"` + id + `","client_name":"X"}`,
		`{"client_id":"` + id + `","client_name":"X","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"client_secret_basic"}`,
		`{"client_id":"` + id + `","client_name":"` + strings.Repeat("x", 600) + `","redirect_uris":["http://127.0.0.1/callback"]}`,
		`[1,2]`,
	} {
		body = b
		h.as.cimd.cache = map[string]cimdEntry{}
		_, challenge := pkce()
		p := authParams(challenge)
		p.Set("client_id", id)
		resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
		if resp.StatusCode != 401 || resp.Header.Get("Location") != "" {
			t.Fatalf("document %d: %d %q", i, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

func TestConsentCSRF(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	_, challenge := pkce()
	f := h.consentForm(authParams(challenge))
	for name, mod := range map[string]func(url.Values){
		"missing token": func(v url.Values) { v.Del("csrf") },
		"wrong token":   func(v url.Values) { v.Set("csrf", randomToken(32)) },
		"other request": func(v url.Values) { v.Set("request", randomToken(32)) },
	} {
		v := url.Values{}
		for k := range f {
			v.Set(k, f.Get(k))
		}
		v.Set("decision", "allow")
		mod(v)
		resp, m := h.postForm(h.url(pathConsent), v)
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(m["_body"].(string), ErrAccessDenied) {
			t.Fatalf("%s: %d %q", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// Alice's form token is worthless in Bob's session.
	h.signIn("bob", "", time.Now())
	v := url.Values{"request": {f.Get("request")}, "csrf": {f.Get("csrf")}, "decision": {"allow"}}
	resp, _ := h.postForm(h.url(pathConsent), v)
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Fatalf("cross-session form: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Nobody signed in.
	h.jar.SetCookies(mustURL(h.ts.URL), []*http.Cookie{{Name: "sid", Value: "none", Path: "/"}})
	resp, _ = h.postForm(h.url(pathConsent), v)
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Fatalf("anonymous form: %d", resp.StatusCode)
	}
	if codes := h.countKind(KindCode); codes != 0 {
		t.Fatalf("%d codes issued", codes)
	}
	h.noneIssued()
}

func mustURL(s string) *url.URL { u, _ := url.Parse(s); return u }

func (h *harness) countKind(k Kind) int {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	n := 0
	for _, c := range h.store.creds {
		if c.Kind == k {
			n++
		}
	}
	return n
}

func TestDeviceFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	resp, da := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}, "scope": {"notes:read"}})
	if resp.StatusCode != 200 || da["device_code"] == nil || da["user_code"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, da)
	}
	poll := func() (*http.Response, map[string]any) {
		return h.postForm(h.url(pathToken), url.Values{"grant_type": {grantDevice}, "device_code": {da["device_code"].(string)}, "client_id": {publicID}})
	}
	resp, body := poll()
	h.wantError(resp, body, 400, ErrAuthorizationPending)
	resp, body = poll()
	h.wantError(resp, body, 400, ErrSlowDown)
	// The person opens the page, signed out: sent to the login first.
	page := da["verification_uri_complete"].(string)
	if resp, _ := h.get(page); resp.StatusCode != http.StatusSeeOther || h.login.lastAsked().ReturnTo != page {
		t.Fatalf("device page signed out: %d", resp.StatusCode)
	}
	h.signIn("alice", "", time.Now())
	resp, html := h.get(page)
	if resp.StatusCode != 200 || !strings.Contains(html, "Public App") {
		t.Fatalf("%d %s", resp.StatusCode, html)
	}
	f := hidden(html)
	f.Set("decision", "allow")
	if resp, m := h.postForm(h.url(pathDevice), f); resp.StatusCode != 200 || !strings.Contains(m["_body"].(string), "connected") {
		t.Fatalf("%d %v", resp.StatusCode, m)
	}
	h.clock.add(11 * time.Second)
	resp, tok := poll()
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	resp, body = poll()
	h.wantError(resp, body, 400, ErrInvalidGrant)
}

func TestExpiredDeviceCode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, da := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}})
	h.signIn("alice", "", time.Now())
	h.clock.add(DefaultDeviceCodeTTL + time.Second)
	// The person is too late to approve...
	resp, html := h.get(da["verification_uri_complete"].(string))
	if resp.StatusCode != 400 || !strings.Contains(html, "expired") {
		t.Fatalf("late approval page: %d", resp.StatusCode)
	}
	// ...and the device hears expired_token.
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {grantDevice}, "device_code": {da["device_code"].(string)}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrExpiredToken)
	h.noneIssued()
	resp, body = h.postForm(h.url(pathToken), url.Values{"grant_type": {grantDevice}, "device_code": {"made-up"}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrInvalidGrant)
}

func TestPAR(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", confID)
	p.Set("redirect_uri", confCB)
	resp, pr := h.postForm(h.url(pathPAR), p, confID, confSecret)
	if resp.StatusCode != 201 || !strings.HasPrefix(pr["request_uri"].(string), requestURIPrefix) {
		t.Fatalf("%d %v", resp.StatusCode, pr)
	}
	uri := pr["request_uri"].(string)
	resp, body := h.get(h.url(pathAuthorize) + "?" + url.Values{"client_id": {confID}, "request_uri": {uri}}.Encode())
	f := hidden(body)
	if resp.StatusCode != 200 || f.Get("csrf") == "" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	f.Set("decision", "allow")
	resp, _ = h.postForm(h.url(pathConsent), f)
	code := h.redirectParams(resp, confCB).Get("code")
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {confCB}}, confID, confSecret)
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	// Pushing needs client authentication.
	resp, m := h.postForm(h.url(pathPAR), p, confID, "wrong")
	h.wantError(resp, m, 401, ErrInvalidClient)
}

func TestTamperedPARRequestURI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	_, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", confID)
	p.Set("redirect_uri", confCB)
	_, pr := h.postForm(h.url(pathPAR), p, confID, confSecret)
	uri := pr["request_uri"].(string)
	for name, q := range map[string]url.Values{
		"tampered":       {"client_id": {confID}, "request_uri": {uri[:len(uri)-2] + "xx"}},
		"foreign prefix": {"client_id": {confID}, "request_uri": {"https://evil.example/req"}},
		"other client":   {"client_id": {publicID}, "request_uri": {uri}},
	} {
		resp, body := h.get(h.url(pathAuthorize) + "?" + q.Encode())
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(body, ErrInvalidRequestURI) {
			t.Fatalf("%s: %d %q", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// Used once, it cannot be used again.
	q := url.Values{"client_id": {confID}, "request_uri": {uri}}
	if resp, _ := h.get(h.url(pathAuthorize) + "?" + q.Encode()); resp.StatusCode != 200 {
		t.Fatalf("first use: %d", resp.StatusCode)
	}
	if resp, _ := h.get(h.url(pathAuthorize) + "?" + q.Encode()); resp.StatusCode != 400 {
		t.Fatalf("second use: %d", resp.StatusCode)
	}
	if h.countKind(KindCode) != 0 {
		t.Fatal("a code was issued")
	}
	h.noneIssued()
}

func TestTokenEndpointErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for name, c := range map[string]struct {
		form   url.Values
		status int
		code   string
	}{
		"no grant_type":               {url.Values{"client_id": {publicID}}, 400, ErrInvalidRequest},
		"unknown grant_type":          {url.Values{"client_id": {publicID}, "grant_type": {"password"}}, 400, ErrUnsupportedGrantType},
		"unknown client":              {url.Values{"client_id": {"nobody"}, "grant_type": {"authorization_code"}}, 401, ErrInvalidClient},
		"no client":                   {url.Values{"grant_type": {"authorization_code"}}, 401, ErrInvalidClient},
		"public with secret":          {url.Values{"client_id": {publicID}, "client_secret": {"x"}, "grant_type": {"authorization_code"}}, 401, ErrInvalidClient},
		"confidential without secret": {url.Values{"client_id": {confID}, "grant_type": {"authorization_code"}}, 401, ErrInvalidClient},
		"unknown code":                {url.Values{"client_id": {publicID}, "grant_type": {"authorization_code"}, "code": {"nope"}, "code_verifier": {strings.Repeat("a", 43)}}, 400, ErrInvalidGrant},
		"unknown refresh":             {url.Values{"client_id": {publicID}, "grant_type": {"refresh_token"}, "refresh_token": {"nope"}}, 400, ErrInvalidGrant},
		"refresh wider scope":         {url.Values{"client_id": {publicID}, "grant_type": {"refresh_token"}, "refresh_token": {"nope"}, "scope": {"admin"}}, 400, ErrInvalidGrant},
		"unknown scope":               {url.Values{"grant_type": {"client_credentials"}, "scope": {"admin"}}, 400, ErrInvalidScope},
		"repeated parameter":          {url.Values{"client_id": {publicID, publicID}, "grant_type": {"authorization_code"}}, 400, ErrInvalidRequest},
	} {
		var resp *http.Response
		var body map[string]any
		if name == "unknown scope" {
			resp, body = h.postForm(h.url(pathToken), c.form, machineID, machineSecr)
		} else {
			resp, body = h.postForm(h.url(pathToken), c.form)
		}
		if resp.StatusCode != c.status || body["error"] != c.code {
			t.Fatalf("%s: %d %v, want %d %s", name, resp.StatusCode, body, c.status, c.code)
		}
	}
	h.noneIssued()
	// A JSON body is refused.
	req, _ := http.NewRequest(http.MethodPost, h.url(pathToken), strings.NewReader(`{"grant_type":"client_credentials"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, body := h.do(req); resp.StatusCode != 400 || body["error"] != ErrInvalidRequest {
		t.Fatalf("JSON body: %d %v", resp.StatusCode, body)
	}
}

func TestAuthorizationErrorsRedirect(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for name, c := range map[string]struct {
		mod  func(url.Values)
		code string
	}{
		"response_type token": {func(p url.Values) { p.Set("response_type", "token") }, ErrUnsupportedResponseType},
		"unknown scope":       {func(p url.Values) { p.Set("scope", "admin") }, ErrInvalidScope},
		"prompt none":         {func(p url.Values) { p.Set("prompt", "none") }, ErrLoginRequired},
		"bad max_age":         {func(p url.Values) { p.Set("max_age", "-3") }, ErrInvalidRequest},
	} {
		_, challenge := pkce()
		p := authParams(challenge)
		c.mod(p)
		resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
		q := h.redirectParams(resp, publicCB)
		if q.Get("error") != c.code || q.Get("iss") != h.as.Issuer() || q.Get("state") != "st-1" {
			t.Fatalf("%s: %v", name, q)
		}
	}
	h.signIn("bob", "", time.Now())
	_, challenge := pkce()
	p := authParams(challenge)
	p.Set("prompt", "none")
	resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
	if q := h.redirectParams(resp, publicCB); q.Get("error") != ErrConsentRequired {
		t.Fatalf("prompt=none without consent: %v", q)
	}
	// An inactive account cannot authorize.
	h.login.setActive("bob", false)
	_, challenge = pkce()
	resp, _ = h.get(h.url(pathAuthorize) + "?" + authParams(challenge).Encode())
	if q := h.redirectParams(resp, publicCB); q.Get("error") != ErrAccessDenied {
		t.Fatalf("inactive: %v", q)
	}
	h.noneIssued()
}

func TestGrantLifetime(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) { c.GrantLifetime = time.Hour; c.RefreshTokenTTL = 50 * time.Minute })
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	_, tok := h.redeem(h.code(authParams(challenge)), verifier)
	refresh := func(rt string) (*http.Response, map[string]any) {
		return h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {publicID}})
	}
	h.clock.add(40 * time.Minute)
	resp, tok2 := refresh(tok["refresh_token"].(string))
	if resp.StatusCode != 200 {
		t.Fatal(tok2)
	}
	// Rotated 40 minutes in, the new token still ends with the grant.
	h.clock.add(21 * time.Minute)
	a, r := h.issued()
	resp, body := refresh(tok2["refresh_token"].(string))
	h.wantError(resp, body, 400, ErrInvalidGrant)
	if a2, r2 := h.issued(); a2 > a || r2 > r {
		t.Fatal("tokens issued past the grant's lifetime")
	}
}

func TestDeviceCodeGuessing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, da := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}})
	h.signIn("alice", "", time.Now())
	for i := range maxCodeGuesses {
		if resp, _ := h.get(h.url(pathDevice) + "?user_code=BBBB-BBB" + string(rune('B'+i))); resp.StatusCode != 400 {
			t.Fatalf("wrong code %d: %d", i, resp.StatusCode)
		}
	}
	// Even the right code is refused now.
	resp, body := h.get(da["verification_uri_complete"].(string))
	if resp.StatusCode != http.StatusTooManyRequests || strings.Contains(body, `value="allow"`) {
		t.Fatalf("after %d wrong codes: %d", maxCodeGuesses, resp.StatusCode)
	}
	// Another person is not affected, and the window passes.
	h.signIn("bob", "", time.Now())
	if resp, _ := h.get(da["verification_uri_complete"].(string)); resp.StatusCode != 200 {
		t.Fatalf("bob: %d", resp.StatusCode)
	}
	h.signIn("alice", "", time.Now())
	h.clock.add(guessWindow)
	_, da2 := h.postForm(h.url(pathDeviceAuthorization), url.Values{"client_id": {publicID}})
	if resp, _ := h.get(da2["verification_uri_complete"].(string)); resp.StatusCode != 200 {
		t.Fatalf("after the window: %d", resp.StatusCode)
	}
}
