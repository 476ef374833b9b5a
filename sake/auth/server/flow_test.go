package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
)

func TestMetadata(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		resp, body := h.get(h.ts.URL + p)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		if m["issuer"] != h.ts.URL || m["client_id_metadata_document_supported"] != true ||
			m["authorization_response_iss_parameter_supported"] != true {
			t.Fatalf("%s: %v", p, m)
		}
		if got := m["code_challenge_methods_supported"].([]any); len(got) != 1 || got[0] != "S256" {
			t.Fatalf("PKCE methods %v: only S256", got)
		}
		for _, k := range []string{"authorization_endpoint", "token_endpoint", "jwks_uri", "registration_endpoint",
			"revocation_endpoint", "introspection_endpoint", "pushed_authorization_request_endpoint",
			"device_authorization_endpoint", "userinfo_endpoint"} {
			if s, _ := m[k].(string); !strings.HasPrefix(s, h.ts.URL+"/oauth/") {
				t.Fatalf("%s = %v", k, m[k])
			}
		}
	}
	// Discovery by the sake/auth client finds it.
	md, err := auth.Discover(context.Background(), h.ts.URL, nil)
	if err != nil || md.JWKSURI != h.url(pathJWKS) {
		t.Fatalf("Discover: %+v %v", md, err)
	}
}

func TestIssuerWithPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) { c.Issuer += "/tenant" })
	resp, body := h.get(h.ts.URL + "/.well-known/oauth-authorization-server/tenant")
	if resp.StatusCode != 200 || !strings.Contains(body, `"issuer":"`+h.ts.URL+`/tenant"`) ||
		!strings.Contains(body, h.ts.URL+"/tenant/oauth/token") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp, _ := h.get(h.ts.URL + "/tenant/.well-known/openid-configuration"); resp.StatusCode != 200 {
		t.Fatalf("path-appended OpenID discovery: %d", resp.StatusCode)
	}
}

// TestCodeFlow runs the whole flow and checks the token with the
// sake/auth verifier fed from the published JWKS: no extra code.
func TestCodeFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "urn:pwd", time.Now())
	verifier, challenge := pkce()
	code := h.code(authParams(challenge))
	resp, tok := h.redeem(code, verifier)
	if resp.StatusCode != 200 || tok["token_type"] != "Bearer" || tok["refresh_token"] == nil || tok["scope"] != "notes:read" {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("token response headers %v", resp.Header)
	}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: h.as.Issuer(), Audience: []string{resourceA},
		Keys: auth.NewJWKS(h.url(pathJWKS), nil)})
	if err != nil {
		t.Fatal(err)
	}
	id, err := v.Verify(context.Background(), &auth.TokenRequest{Token: tok["access_token"].(string)})
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "alice" || id.ClientID != publicID || !slices.Equal(id.Scopes, []string{"notes:read"}) ||
		id.ACR != "urn:pwd" || id.AuthTime.IsZero() {
		t.Fatalf("identity %+v", id)
	}
	// Consent is remembered: a second authorization skips the page.
	_, challenge2 := pkce()
	resp2, _ := h.get(h.url(pathAuthorize) + "?" + authParams(challenge2).Encode())
	if q := h.redirectParams(resp2, publicCB); q.Get("code") == "" {
		t.Fatalf("remembered consent: %v", q)
	}
}

func TestDefaultScopeAndResource(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Del("scope")
	p.Del("resource")
	code := h.code(p)
	_, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {publicCB}, "client_id": {publicID}})
	if tok["scope"] != "notes:read notes:write" {
		t.Fatalf("default scopes: %v", tok)
	}
	claims, ok := h.as.ownAccessToken(context.Background(), tok["access_token"].(string))
	if !ok || claims["aud"] != resourceA {
		t.Fatalf("default audience: %v", claims)
	}
}

func TestLoopbackRedirectAnyPort(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("redirect_uri", "http://127.0.0.1:49152/callback")
	code := h.code(p)
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:49152/callback"}, "client_id": {publicID}})
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
}

func TestLoginRedirectAndReturn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, challenge := pkce()
	resp, _ := h.get(h.url(pathAuthorize) + "?" + authParams(challenge).Encode())
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Host != "login.example" {
		t.Fatalf("not sent to the login: %d %v", resp.StatusCode, loc)
	}
	back := loc.Query().Get("return")
	if !h.as.IsReturnURL(back) || h.as.IsReturnURL("https://evil.example/oauth/consent") {
		t.Fatalf("IsReturnURL(%q)", back)
	}
	h.signIn("alice", "", time.Now())
	resp, body := h.get(back)
	if resp.StatusCode != 200 || !strings.Contains(body, "Public App") || !strings.Contains(body, "Read your notes") ||
		!strings.Contains(body, "127.0.0.1") {
		t.Fatalf("consent page: %d %s", resp.StatusCode, body)
	}
	for k, want := range map[string]string{"X-Frame-Options": "DENY", "Cache-Control": "no-store"} {
		if resp.Header.Get(k) != want {
			t.Fatalf("%s = %q", k, resp.Header.Get(k))
		}
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatal("no frame-ancestors")
	}
}

func TestDenyConsent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	_, challenge := pkce()
	f := h.consentForm(authParams(challenge))
	f.Set("decision", "deny")
	resp, _ := h.postForm(h.url(pathConsent), f)
	q := h.redirectParams(resp, publicCB)
	if q.Get("error") != ErrAccessDenied || q.Get("code") != "" || q.Get("state") != "st-1" || q.Get("iss") != h.as.Issuer() {
		t.Fatalf("%v", q)
	}
}

func TestRefreshRotation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	_, tok := h.redeem(h.code(authParams(challenge)), verifier)
	rt := tok["refresh_token"].(string)
	resp, tok2 := h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {publicID}})
	if resp.StatusCode != 200 || tok2["refresh_token"] == nil || tok2["refresh_token"] == rt {
		t.Fatalf("refresh: %d %v", resp.StatusCode, tok2)
	}
	// A person who lost access gets no more tokens.
	h.login.setActive("alice", false)
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {tok2["refresh_token"].(string)}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrInvalidGrant)
}

func TestConfidentialClientAuthentication(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	for _, method := range []string{"basic", "post"} {
		verifier, challenge := pkce()
		p := authParams(challenge)
		p.Set("client_id", confID)
		p.Set("redirect_uri", confCB)
		p.Set("prompt", "consent")
		code := h.code(p)
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {confCB}}
		var resp *http.Response
		var tok map[string]any
		if method == "basic" {
			resp, tok = h.postForm(h.url(pathToken), form, confID, confSecret)
		} else {
			form.Set("client_id", confID)
			form.Set("client_secret", confSecret)
			resp, tok = h.postForm(h.url(pathToken), form)
		}
		if resp.StatusCode != 200 || tok["access_token"] == nil {
			t.Fatalf("%s: %d %v", method, resp.StatusCode, tok)
		}
	}
	stored, _ := h.store.Client(context.Background(), confID)
	if stored != nil {
		t.Fatal("pre-registered clients are not copied into the store")
	}
	if strings.Contains(h.as.static[confID].SecretHash, confSecret) {
		t.Fatal("secret stored in clear")
	}
}

func TestRevocationAndIntrospection(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", confID)
	p.Set("redirect_uri", confCB)
	_, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {h.code(p)},
		"code_verifier": {verifier}, "redirect_uri": {confCB}}, confID, confSecret)
	at, rt := tok["access_token"].(string), tok["refresh_token"].(string)
	introspect := func(token string) map[string]any {
		_, m := h.postForm(h.url(pathIntrospect), url.Values{"token": {token}}, confID, confSecret)
		return m
	}
	if m := introspect(at); m["active"] != true || m["sub"] != "alice" || m["client_id"] != confID || m["aud"] != resourceA {
		t.Fatalf("introspect access: %v", m)
	}
	if m := introspect(rt); m["active"] != true {
		t.Fatalf("introspect refresh: %v", m)
	}
	if m := introspect("garbage"); m["active"] != false || len(m) != 1 {
		t.Fatalf("introspect garbage: %v", m)
	}
	// Public clients cannot introspect.
	resp, m := h.postForm(h.url(pathIntrospect), url.Values{"token": {at}, "client_id": {publicID}})
	h.wantError(resp, m, 401, ErrInvalidClient)
	// Another client revoking has no effect.
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {rt}, "client_id": {publicID}}); resp.StatusCode != 200 {
		t.Fatalf("revoke by another: %d", resp.StatusCode)
	}
	if m := introspect(rt); m["active"] != true {
		t.Fatal("another client revoked the token")
	}
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {rt}, "token_type_hint": {"refresh_token"}}, confID, confSecret); resp.StatusCode != 200 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if m := introspect(rt); m["active"] != false {
		t.Fatalf("revoked refresh token still active: %v", m)
	}
	if m := introspect(at); m["active"] != false {
		t.Fatalf("access token of a revoked family still active: %v", m)
	}
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}, confID, confSecret)
	h.wantError(resp, body, 400, ErrInvalidGrant)
}

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}, "scope": {"notes:read"},
		"resource": {resourceB}}, machineID, machineSecr)
	if resp.StatusCode != 200 || tok["refresh_token"] != nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	v, _ := h.as.Verifier(resourceB)
	id, err := v.Verify(context.Background(), &auth.TokenRequest{Token: tok["access_token"].(string)})
	if err != nil || id.Subject != "" || id.ClientID != machineID || id.Owner() != "client:"+machineID {
		t.Fatalf("%+v %v", id, err)
	}
	// RFC 9068 §2.2: sub is required; without a person it names the
	// client. Introspection does not take it for a person to look up.
	if id.Claims["sub"] != machineID {
		t.Fatalf("sub = %v, want the client id %q", id.Claims["sub"], machineID)
	}
	if _, m := h.postForm(h.url(pathIntrospect), url.Values{"token": {tok["access_token"].(string)}}, confID, confSecret); m["active"] != true || m["sub"] != machineID {
		t.Fatalf("introspect a client credentials token: %v", m)
	}
	// A public client may not.
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrUnauthorizedClient)
	resp, body = h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}}, machineID, "wrong")
	h.wantError(resp, body, 401, ErrInvalidClient)
	if resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatal("401 to Basic without a challenge")
	}
}

func TestStepUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "urn:pwd", time.Now().Add(-time.Hour))
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("acr_values", "urn:mfa")
	p.Set("max_age", "300")
	resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "https://login.example/") {
		t.Fatalf("step-up did not send to the login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	asked := h.login.lastAsked()
	if !slices.Equal(asked.ACRValues, []string{"urn:mfa"}) || asked.MaxAge == nil || *asked.MaxAge != 5*time.Minute {
		t.Fatalf("login request %+v", asked)
	}
	// The login re-authenticates with a second factor, now.
	h.signIn("alice", "urn:mfa", h.clock.now())
	resp, body := h.get(asked.ReturnTo)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("back from the login: %d", resp.StatusCode)
	}
	f := hidden(body)
	f.Set("decision", "allow")
	resp, _ = h.postForm(h.url(pathConsent), f)
	code := h.redirectParams(resp, publicCB).Get("code")
	_, tok := h.redeem(code, verifier)
	claims, _ := h.as.ownAccessToken(context.Background(), tok["access_token"].(string))
	if claims["acr"] != "urn:mfa" || int64(claims["auth_time"].(float64)) != h.clock.now().Unix() {
		t.Fatalf("step-up token claims %v", claims)
	}

	// A login that comes back still too weak ends in access_denied, not
	// in a loop.
	h.signIn("alice", "urn:pwd", h.clock.now())
	_, challenge = pkce()
	p.Set("code_challenge", challenge)
	resp, _ = h.get(h.url(pathAuthorize) + "?" + p.Encode())
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "https://login.example/") {
		t.Fatalf("a weak sign-in is not sent to the login: %d", resp.StatusCode)
	}
	back := h.login.lastAsked().ReturnTo
	resp, _ = h.get(back)
	if q := h.redirectParams(resp, publicCB); q.Get("error") != ErrAccessDenied {
		t.Fatalf("weak login after step-up: %v", q)
	}
}

func TestOpenIDConnect(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "urn:pwd", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("scope", "openid email notes:read")
	p.Set("nonce", "n-0S6")
	_, tok := h.redeem(h.code(p), verifier)
	idt, _ := tok["id_token"].(string)
	if idt == "" {
		t.Fatalf("no id_token: %v", tok)
	}
	claims, err := h.as.keys.parse(idt, h.as.Issuer(), time.Now())
	if err != nil || claims["aud"] != publicID || claims["nonce"] != "n-0S6" || claims["sub"] != "alice" ||
		claims["email"] != "alice@example.com" || claims["name"] != nil {
		t.Fatalf("id token %v %v", claims, err)
	}
	req, _ := http.NewRequest(http.MethodGet, h.url(pathUserinfo), nil)
	req.Header.Set("Authorization", "Bearer "+tok["access_token"].(string))
	resp, info := h.do(req)
	if resp.StatusCode != 200 || info["sub"] != "alice" || info["email"] != "alice@example.com" {
		t.Fatalf("userinfo %d %v", resp.StatusCode, info)
	}
	req, _ = http.NewRequest(http.MethodGet, h.url(pathUserinfo), nil)
	req.Header.Set("Authorization", "Bearer forged.token.value")
	if resp, _ := h.do(req); resp.StatusCode != 401 {
		t.Fatalf("userinfo with a bad token: %d", resp.StatusCode)
	}
}

func TestDCR(t *testing.T) {
	t.Parallel()
	var hooked *Client
	h := newHarness(t, func(c *Config) {
		c.Registration = func(_ context.Context, _ *http.Request, cl *Client) error {
			hooked = cl
			if strings.Contains(cl.Name, "Evil") {
				return errRefused
			}
			return nil
		}
	})
	register := func(body string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return h.do(req)
	}
	resp, reg := register(`{"client_name":"Desktop","redirect_uris":["http://localhost:3000/cb"],"token_endpoint_auth_method":"none","application_type":"native"}`)
	if resp.StatusCode != 201 || reg["client_id"] == nil || reg["client_secret"] != nil || hooked == nil {
		t.Fatalf("%d %v", resp.StatusCode, reg)
	}
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", reg["client_id"].(string))
	p.Set("redirect_uri", "http://localhost:3000/cb")
	code := h.code(p)
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {"http://localhost:3000/cb"}, "client_id": {reg["client_id"].(string)}})
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	// A confidential registration gets a secret, stored hashed.
	resp, reg = register(`{"client_name":"Web","redirect_uris":["https://web.example/cb"]}`)
	if resp.StatusCode != 201 || reg["client_secret"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, reg)
	}
	c, _ := h.store.Client(context.Background(), reg["client_id"].(string))
	if c == nil || c.SecretHash == "" || strings.Contains(c.SecretHash, reg["client_secret"].(string)) {
		t.Fatalf("stored client %+v", c)
	}
	for body, code := range map[string]string{
		`{"client_name":"Evil","redirect_uris":["https://evil.example/cb"]}`:         ErrInvalidClientMetadata,
		`{"client_name":"X","redirect_uris":["http://evil.example/cb"]}`:             ErrInvalidRedirectURI,
		`{"client_name":"X","redirect_uris":["https://x.example/cb#frag"]}`:          ErrInvalidRedirectURI,
		`{"client_name":"X","redirect_uris":["myapp:/cb"],"application_type":"web"}`: ErrInvalidRedirectURI,
		`{"client_name":"X"}`: ErrInvalidRedirectURI,
		`{"client_name":"X","redirect_uris":["https://x.example/cb"],"grant_types":["implicit"]}`:                     ErrInvalidClientMetadata,
		`{"client_name":"X","redirect_uris":["https://x.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`: ErrInvalidClientMetadata,
		`not json`: ErrInvalidClientMetadata,
	} {
		before, _ := h.store.CountClients(context.Background())
		resp, m := register(body)
		after, _ := h.store.CountClients(context.Background())
		if resp.StatusCode != 400 || m["error"] != code || after != before {
			t.Fatalf("%s: %d %v (clients %d -> %d), want %s", body, resp.StatusCode, m, before, after, code)
		}
	}
}

type refusedError struct{}

func (refusedError) Error() string { return "this registration is refused by policy" }

var errRefused = refusedError{}

func TestCIMD(t *testing.T) {
	t.Parallel()
	var docURL string
	var fetches int
	doc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=600")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "Doc Client",
			"redirect_uris": []string{"http://127.0.0.1/cb"}, "token_endpoint_auth_method": "none"})
	}))
	defer doc.Close()
	docURL = doc.URL + "/client.json"
	h := newHarness(t, func(c *Config) {
		c.Metadata = MetadataDocuments{AllowPrivateAddresses: true, TLS: doc.Client().Transport.(*http.Transport).TLSClientConfig}
	})
	h.signIn("alice", "", time.Now())
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("client_id", docURL)
	p.Set("redirect_uri", "http://127.0.0.1:5555/cb")
	f := h.consentForm(p)
	_ = f
	_, body := h.get(h.url(pathAuthorize) + "?" + p.Encode())
	if !strings.Contains(body, "Doc Client") || !strings.Contains(body, docURL) || !strings.Contains(body, "your own computer") {
		t.Fatalf("consent page for a document client: %s", body)
	}
	code := h.code(p)
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {"http://127.0.0.1:5555/cb"}, "client_id": {docURL}})
	if resp.StatusCode != 200 || tok["access_token"] == nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	if fetches != 1 {
		t.Fatalf("document fetched %d times, want 1 (cached)", fetches)
	}
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	for _, alg := range []string{ES256, EdDSA} {
		h := newHarness(t, func(c *Config) { c.SigningAlgorithm = alg })
		issue := func() string {
			_, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}}, machineID, machineSecr)
			return tok["access_token"].(string)
		}
		old := issue()
		_, jwks1 := h.get(h.url(pathJWKS))
		if err := h.as.RotateKeys(); err != nil {
			t.Fatal(err)
		}
		fresh := issue()
		_, jwks2 := h.get(h.url(pathJWKS))
		if strings.Count(jwks1, `"kid"`) != 2 || strings.Count(jwks2, `"kid"`) != 3 {
			t.Fatalf("%s: JWKS before %s after %s", alg, jwks1, jwks2)
		}
		v, _ := auth.NewJWTVerifier(auth.JWTConfig{Issuer: h.as.Issuer(), Audience: []string{resourceA},
			Keys: auth.NewJWKS(h.url(pathJWKS), nil)})
		for _, tok := range []string{old, fresh} {
			if _, err := v.Verify(context.Background(), &auth.TokenRequest{Token: tok}); err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
		}
	}
}

func TestDPoPBoundTokens(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.signIn("alice", "", time.Now())
	key := newECKey(t)
	verifier, challenge := pkce()
	code := h.code(authParams(challenge))
	proof, _ := auth.NewDPoPProof(key, "POST", h.url(pathToken), "", time.Now())
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"redirect_uri": {publicCB}, "client_id": {publicID}}
	req, _ := http.NewRequest(http.MethodPost, h.url(pathToken), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("DPoP", proof)
	resp, tok := h.do(req)
	if resp.StatusCode != 200 || tok["token_type"] != "DPoP" {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	at := tok["access_token"].(string)
	v, _ := h.as.Verifier(resourceA)
	u, _ := url.Parse(resourceA)
	// As a bearer token it is refused; with a proof by the key, accepted.
	if _, err := v.Verify(context.Background(), &auth.TokenRequest{Scheme: "Bearer", Token: at}); err == nil {
		t.Fatal("a DPoP-bound token was accepted as a bearer token")
	}
	rp, _ := auth.NewDPoPProof(key, "POST", resourceA, at, time.Now())
	if _, err := v.Verify(context.Background(), &auth.TokenRequest{Scheme: "DPoP", Token: at, DPoPProof: rp, Method: "POST", URL: u}); err != nil {
		t.Fatal(err)
	}
	// The refresh token is bound too: refreshing without the proof fails.
	resp, body := h.postForm(h.url(pathToken), url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {tok["refresh_token"].(string)}, "client_id": {publicID}})
	h.wantError(resp, body, 400, ErrInvalidDPoPProof)
}
