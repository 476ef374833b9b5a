package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/auth"
)

const (
	resourceC = "https://mcp-c.example/mcp"
	rsAID     = "rs-a"
	rsASecret = "secret-of-resource-server-a-0123"
	rsBID     = "rs-b"
	rsBSecret = "secret-of-resource-server-b-0123"
)

// withExchange adds resource C and two resource servers that may
// exchange: rs-a the tokens sent to A, rs-b those sent to B.
func withExchange(c *Config) {
	a, _ := HashSecret(rsASecret)
	b, _ := HashSecret(rsBSecret)
	c.Resources = append(c.Resources, resourceC)
	c.Clients = append(c.Clients,
		Client{ID: rsAID, SecretHash: a, GrantTypes: []string{GrantTokenExchange}, ExchangeFrom: []string{resourceA}},
		Client{ID: rsBID, SecretHash: b, GrantTypes: []string{GrantTokenExchange}, ExchangeFrom: []string{resourceB}})
}

// userTokens signs alice in and returns the public client's access and
// refresh tokens for resource with scope.
func (h *harness) userTokens(scope, resource string) (access, refresh string) {
	h.t.Helper()
	h.signIn("alice", "urn:mfa", h.clock.now().Add(-time.Minute))
	verifier, challenge := pkce()
	p := authParams(challenge)
	p.Set("scope", scope+" offline_access")
	p.Set("resource", resource)
	resp, tok := h.postForm(h.url(pathToken), url.Values{"grant_type": {"authorization_code"}, "code": {h.code(p)},
		"code_verifier": {verifier}, "redirect_uri": {publicCB}, "client_id": {publicID}, "resource": {resource}})
	if resp.StatusCode != 200 {
		h.t.Fatalf("code grant: %d %v", resp.StatusCode, tok)
	}
	return tok["access_token"].(string), tok["refresh_token"].(string)
}

// exchangeForm is a valid exchange of subject for resource.
func exchangeForm(subject, resource string) url.Values {
	return url.Values{"grant_type": {GrantTokenExchange}, "subject_token": {subject},
		"subject_token_type": {TokenTypeAccessToken}, "resource": {resource}}
}

func (h *harness) exchange(form url.Values, id, secret string) (*http.Response, map[string]any) {
	h.t.Helper()
	return h.postForm(h.url(pathToken), form, id, secret)
}

// verify checks token with the server's verifier for resource.
func (h *harness) verify(token, resource string) (*auth.TokenRequest, error) {
	v, err := h.as.Verifier(resource)
	if err != nil {
		h.t.Fatal(err)
	}
	tr := &auth.TokenRequest{Token: token}
	_, err = v.Verify(context.Background(), tr)
	return tr, err
}

func TestTokenExchange(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, refresh := h.userTokens("notes:read notes:write", resourceA)

	resp, tok := h.exchange(url.Values{"grant_type": {GrantTokenExchange}, "subject_token": {subject},
		"subject_token_type": {TokenTypeAccessToken}, "requested_token_type": {TokenTypeAccessToken},
		"audience": {resourceB}, "scope": {"notes:read"}}, rsAID, rsASecret)
	if resp.StatusCode != 200 || tok["issued_token_type"] != TokenTypeAccessToken || tok["token_type"] != "Bearer" ||
		tok["scope"] != "notes:read" || tok["refresh_token"] != nil || tok["id_token"] != nil {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatal("an exchange answer may be cached")
	}
	atB := tok["access_token"].(string)
	vb, _ := h.as.Verifier(resourceB)
	id, err := vb.Verify(context.Background(), &auth.TokenRequest{Token: atB})
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "alice" || id.ClientID != rsAID || !slices.Equal(id.Scopes, []string{"notes:read"}) ||
		id.ACR != "urn:mfa" || id.AuthTime.IsZero() || id.Claims["aud"] != resourceB {
		t.Fatalf("identity %+v", id)
	}
	if a := auth.Actors(id); len(a) != 1 || a[0].Subject != rsAID {
		t.Fatalf("Actors = %+v", a)
	}
	// B's verifier keeps tokens (rs-b exchanges B's tokens); A's token
	// does not pass it.
	if auth.TokenOf(id) != atB {
		t.Fatal("the verifier of a resource whose server exchanges did not keep the token")
	}
	if _, err := h.verify(subject, resourceB); err == nil {
		t.Fatal("the subject token was accepted by B")
	}

	// A chain: B exchanges what it received for C.
	resp, tok = h.exchange(exchangeForm(atB, resourceC), rsBID, rsBSecret)
	if resp.StatusCode != 200 || tok["scope"] != "notes:read" {
		t.Fatalf("second exchange: %d %v", resp.StatusCode, tok)
	}
	vc, _ := h.as.Verifier(resourceC)
	idC, err := vc.Verify(context.Background(), &auth.TokenRequest{Token: tok["access_token"].(string)})
	if err != nil {
		t.Fatal(err)
	}
	if a := auth.Actors(idC); len(a) != 2 || a[0].Subject != rsBID || a[1].Subject != rsAID || idC.Subject != "alice" {
		t.Fatalf("chain %+v of %+v", a, idC)
	}
	// C's verifier keeps nothing: no client exchanges C's tokens.
	if auth.TokenOf(idC) != "" {
		t.Fatal("a verifier kept tokens nobody may exchange")
	}

	// Without scope, the subject token's scopes but offline_access.
	resp, tok = h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	if resp.StatusCode != 200 || tok["scope"] != "notes:read notes:write" {
		t.Fatalf("default scopes: %d %v", resp.StatusCode, tok)
	}
	// Replaying the same subject token works: another token.
	again := tok["access_token"].(string)
	if again == atB {
		t.Fatal("the same token issued twice")
	}

	// The exchanged tokens belong to the person's authorization:
	// revoking it (here its refresh token) refuses every one of them.
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {refresh}, "client_id": {publicID}}); resp.StatusCode != 200 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	for _, tk := range []string{atB, again} {
		if _, err := h.verify(tk, resourceB); err == nil {
			t.Fatal("an exchanged token outlived the revoked authorization")
		}
	}
	a0, _ := h.issued()
	resp, body := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	h.wantError(resp, body, 400, ErrInvalidRequest)
	if a1, _ := h.issued(); a1 != a0 {
		t.Fatal("a revoked subject token was exchanged")
	}
}

func TestTokenExchangeMetadata(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if !slices.Contains(h.as.Metadata().GrantTypesSupported, GrantTokenExchange) {
		t.Fatalf("grant types %v", h.as.Metadata().GrantTypesSupported)
	}
}

func TestTokenExchangeLifetime(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, _ := h.userTokens("notes:read", resourceA)
	h.clock.add(DefaultAccessTokenTTL - 5*time.Minute)
	resp, tok := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	if in := tok["expires_in"].(float64); in > 300 || in < 299 {
		t.Fatalf("expires_in %v: longer than the subject token's remaining 300 s", in)
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(tok["access_token"].(string), claims); err != nil {
		t.Fatal(err)
	}
	subj := jwt.MapClaims{}
	_, _, _ = jwt.NewParser().ParseUnverified(subject, subj)
	if claims["exp"].(float64) > subj["exp"].(float64) {
		t.Fatalf("exp %v after the subject token's %v", claims["exp"], subj["exp"])
	}
	// Once the subject token expired, nothing.
	h.clock.add(5 * time.Minute)
	a0, _ := h.issued()
	resp, body := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	h.wantError(resp, body, 400, ErrInvalidRequest)
	if a1, _ := h.issued(); a1 != a0 {
		t.Fatal("an expired subject token was exchanged")
	}
}

func TestTokenExchangeNegatives(t *testing.T) {
	t.Parallel()
	other := newHarness(t, withExchange)
	foreign, _ := other.userTokens("notes:read", resourceA)
	var policy []*TokenExchange
	h := newHarness(t, withExchange, func(c *Config) {
		c.TokenExchange = func(_ context.Context, x *TokenExchange) error {
			policy = append(policy, x)
			if slices.Contains(x.Resource, resourceC) && x.Client.ID == rsAID {
				return errors.New("A may not call C")
			}
			return nil
		}
	})
	subject, refresh := h.userTokens("notes:read", resourceA)
	forB, _ := h.userTokens("notes:read", resourceB)
	_, machine := h.postForm(h.url(pathToken), url.Values{"grant_type": {"client_credentials"}, "scope": {"notes:read"},
		"resource": {resourceA}}, machineID, machineSecr)
	tampered := []byte(subject)
	dot := strings.IndexByte(subject, '.')
	tampered[dot+5] ^= 1

	with := func(f url.Values, kv ...string) url.Values {
		f = url.Values(maps(f))
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				f.Del(kv[i])
			} else {
				f.Add(kv[i], kv[i+1])
			}
		}
		return f
	}
	set := func(f url.Values, k, v string) url.Values { f = url.Values(maps(f)); f.Set(k, v); return f }
	ok := exchangeForm(subject, resourceB)
	cases := []struct {
		name       string
		form       url.Values
		id, secret string
		status     int
		code       string
	}{
		{"a scope the original lacked", with(ok, "scope", "notes:write"), rsAID, rsASecret, 400, ErrInvalidScope},
		{"an unknown scope", with(ok, "scope", "admin"), rsAID, rsASecret, 400, ErrInvalidScope},
		{"offline_access", with(ok, "scope", "offline_access"), rsAID, rsASecret, 400, ErrInvalidScope},
		{"an empty scope", with(ok, "scope", " "), rsAID, rsASecret, 400, ErrInvalidScope},
		{"a resource not served", set(ok, "resource", "https://elsewhere.example/mcp"), rsAID, rsASecret, 400, ErrInvalidTarget},
		{"an audience not served", with(set(ok, "resource", resourceB), "audience", "https://elsewhere.example/mcp"), rsAID, rsASecret, 400, ErrInvalidTarget},
		{"an audience that is no URL", with(with(ok, "resource", ""), "audience", "notes"), rsAID, rsASecret, 400, ErrInvalidTarget},
		{"no target", with(ok, "resource", ""), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a refused target", set(ok, "resource", resourceC), rsAID, rsASecret, 400, ErrInvalidTarget},
		{"a tampered subject token", set(ok, "subject_token", string(tampered)), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"another issuer's token", set(ok, "subject_token", foreign), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a refresh token as an access token", set(ok, "subject_token", refresh), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a refresh token", set(set(ok, "subject_token", refresh), "subject_token_type", TokenTypeRefreshToken), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"garbage", set(ok, "subject_token", "garbage"), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a client's own token", set(ok, "subject_token", machine["access_token"].(string)), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a token sent to another resource", set(ok, "subject_token", forB), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"no subject_token", with(ok, "subject_token", ""), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"no subject_token_type", with(ok, "subject_token_type", ""), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"an unknown subject_token_type", set(ok, "subject_token_type", "urn:ietf:params:oauth:token-type:saml2"), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"two subject tokens", with(ok, "subject_token", subject), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a refresh token requested", with(ok, "requested_token_type", TokenTypeRefreshToken), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"an actor_token", with(with(ok, "actor_token", subject), "actor_token_type", TokenTypeAccessToken), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"an actor_token_type alone", with(ok, "actor_token_type", TokenTypeAccessToken), rsAID, rsASecret, 400, ErrInvalidRequest},
		{"a client not allowed to exchange", ok, confID, confSecret, 400, ErrUnauthorizedClient},
		{"a machine client", ok, machineID, machineSecr, 400, ErrUnauthorizedClient},
		{"the person's own public client", with(ok, "client_id", publicID), "", "", 400, ErrUnauthorizedClient},
		{"another resource server", ok, rsBID, rsBSecret, 400, ErrInvalidRequest},
		{"a wrong secret", ok, rsAID, "wrong", 401, ErrInvalidClient},
	}
	for _, c := range cases {
		a0, r0 := h.issued()
		var resp *http.Response
		var body map[string]any
		if c.id == "" {
			resp, body = h.postForm(h.url(pathToken), c.form)
		} else {
			resp, body = h.exchange(c.form, c.id, c.secret)
		}
		if resp.StatusCode != c.status || body["error"] != c.code {
			t.Errorf("%s: got %d %v, want %d %s", c.name, resp.StatusCode, body, c.status, c.code)
			continue
		}
		h.wantError(resp, body, c.status, c.code)
		if a1, r1 := h.issued(); a1 != a0 || r1 != r0 {
			t.Errorf("%s: a token was issued", c.name)
		}
	}
	if len(policy) != 1 || policy[0].Subject != "alice" || policy[0].SubjectClientID != publicID ||
		!slices.Equal(policy[0].Resource, []string{resourceC}) {
		t.Fatalf("the policy saw %+v; it is asked only once every other check passed", policy)
	}
	// And the valid form still works: the failures changed nothing.
	if resp, tok := h.exchange(ok, rsAID, rsASecret); resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
}

// maps copies form values.
func maps(f url.Values) map[string][]string {
	out := make(map[string][]string, len(f))
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}

func TestTokenExchangeChainBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange, func(c *Config) { c.MaxActorDepth = 1 })
	subject, _ := h.userTokens("notes:read", resourceA)
	resp, tok := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	a0, _ := h.issued()
	resp, body := h.exchange(exchangeForm(tok["access_token"].(string), resourceC), rsBID, rsBSecret)
	h.wantError(resp, body, 400, ErrInvalidRequest)
	if a1, _ := h.issued(); a1 != a0 {
		t.Fatal("a chain past MaxActorDepth was issued")
	}
}

func TestTokenExchangeInactivePerson(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, _ := h.userTokens("notes:read", resourceA)
	h.login.setActive("alice", false)
	a0, _ := h.issued()
	resp, body := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	h.wantError(resp, body, 400, ErrInvalidGrant)
	if a1, _ := h.issued(); a1 != a0 {
		t.Fatal("a token was issued for a person no longer allowed")
	}
	// The authorization is revoked with it.
	h.login.setActive("alice", true)
	if _, err := h.verify(subject, resourceA); err == nil {
		t.Fatal("the subject token outlived the refusal")
	}
}

func TestTokenExchangeDPoP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, _ := h.userTokens("notes:read", resourceA)
	key := newECKey(t)
	proof, err := auth.NewDPoPProof(key, http.MethodPost, h.url(pathToken), "", h.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, h.url(pathToken), strings.NewReader(exchangeForm(subject, resourceB).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("DPoP", proof)
	req.SetBasicAuth(rsAID, rsASecret)
	resp, tok := h.do(req)
	if resp.StatusCode != 200 || tok["token_type"] != "DPoP" {
		t.Fatalf("%d %v", resp.StatusCode, tok)
	}
	// Bound to the resource server's key: as a bearer token it fails.
	if _, err := h.verify(tok["access_token"].(string), resourceB); err == nil {
		t.Fatal("a DPoP-bound exchanged token passed as a bearer token")
	}
}

func TestTokenExchangeClientConfig(t *testing.T) {
	t.Parallel()
	hash, _ := HashSecret("a-secret-of-enough-length-0123456")
	for name, c := range map[string]Client{
		"public":                 {ID: "p", GrantTypes: []string{GrantTokenExchange}, ExchangeFrom: []string{resourceA}},
		"no ExchangeFrom":        {ID: "n", SecretHash: hash, GrantTypes: []string{GrantTokenExchange}},
		"a resource not served":  {ID: "x", SecretHash: hash, GrantTypes: []string{GrantTokenExchange}, ExchangeFrom: []string{"https://elsewhere.example/mcp"}},
		"ExchangeFrom, no grant": {ID: "g", SecretHash: hash, ExchangeFrom: []string{resourceA}},
	} {
		_, err := New(Config{Issuer: "https://as.example", Login: newFakeLogin(), Resources: []string{resourceA}, Clients: []Client{c}})
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	h := newHarness(t)
	req, _ := http.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(
		`{"client_name":"X","redirect_uris":["https://x.example/cb"],"grant_types":["`+GrantTokenExchange+`"]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, body := h.do(req)
	if resp.StatusCode != 400 || body["error"] != ErrInvalidClientMetadata {
		t.Fatalf("a dynamic registration for token exchange: %d %v", resp.StatusCode, body)
	}
}

// The resource server revoking the token it got revokes the
// authorization it came from, the person's token with it.
func TestRevokingAnExchangedToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange)
	subject, _ := h.userTokens("notes:read", resourceA)
	_, tok := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	exchanged := tok["access_token"].(string)
	// Another client's revocation has no effect (RFC 7009 §2.2).
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {exchanged}}, rsBID, rsBSecret); resp.StatusCode != 200 {
		t.Fatalf("revoke by another: %d", resp.StatusCode)
	}
	if _, err := h.verify(exchanged, resourceB); err != nil {
		t.Fatalf("another client revoked the token: %v", err)
	}
	if resp, _ := h.postForm(h.url(pathRevoke), url.Values{"token": {exchanged}}, rsAID, rsASecret); resp.StatusCode != 200 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if _, err := h.verify(exchanged, resourceB); err == nil {
		t.Fatal("the revoked exchanged token is accepted")
	}
	if _, err := h.verify(subject, resourceA); err == nil {
		t.Fatal("the authorization it came from is still alive")
	}
}

func TestTokenExchangePolicyPanics(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withExchange, func(c *Config) {
		c.TokenExchange = func(context.Context, *TokenExchange) error { panic("policy bug") }
	})
	subject, _ := h.userTokens("notes:read", resourceA)
	a0, _ := h.issued()
	resp, body := h.exchange(exchangeForm(subject, resourceB), rsAID, rsASecret)
	h.wantError(resp, body, 500, ErrServerError)
	if a1, _ := h.issued(); a1 != a0 {
		t.Fatal("a token was issued when the policy panicked")
	}
}
