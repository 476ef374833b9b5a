package client_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

// proofNonce returns the nonce claim of a DPoP proof ("" when none).
func proofNonce(proof string) string {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(proof, claims); err != nil {
		return ""
	}
	n, _ := claims["nonce"].(string)
	return n
}

type dpopEcho struct{}

func (dpopEcho) Echo(_ *sake.Context, a echoArgs) (string, error) { return a.Text, nil }

// dpopServer serves dpopEcho behind DPoP-bound tokens of a: every proof
// must verify, name the token (ath) and carry nonce, else 401.
type dpopServer struct {
	url        string
	mu         sync.Mutex
	nonce      string
	nonceAsked int
	served     int
	rotate     bool // every challenge names a new nonce
}

func newDPoPServer(t *testing.T, a *testAS, nonce string) *dpopServer {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s := &dpopServer{url: ts.URL + "/mcp", nonce: nonce}
	md := &auth.ResourceMetadata{Resource: s.url, AuthorizationServers: []string{a.ts.URL}}
	mux.Handle(auth.WellKnownPath(s.url), md.Handler())
	h := plug.New(sake.MustNew(dpopEcho{}))
	t.Cleanup(h.Close)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP ")
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+auth.MetadataURL(s.url)+`"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		proof := r.Header.Get("DPoP")
		if _, err := auth.VerifyDPoPProof(proof, r.Method, &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}, token, time.Now(), 0, nil); err != nil {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_dpop_proof"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		want := s.nonce
		if s.rotate {
			want = "rotated-" + strconv.Itoa(s.nonceAsked)
		}
		if proofNonce(proof) != want || s.rotate {
			s.nonceAsked++
			s.mu.Unlock()
			w.Header().Set("DPoP-Nonce", want)
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		s.served++
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	return s
}

// A server asking for DPoP nonces (RFC 9449 §8 at the token endpoint, §9
// at the MCP endpoint) gets the same request again, once, with a proof
// carrying the nonce; a new nonce later is taken up the same way.
func TestDPoPNonces(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAS(t)
	a.dpopNonce = "as-nonce-1"
	rs := newDPoPServer(t, a, "rs-nonce-1")
	c, err := oauthClient(t, rs.url, client.OAuthConfig{DPoP: key})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "bound"})
	if err != nil || res.Text() != "bound" {
		t.Fatalf("echo: %v %v", res, err)
	}
	a.mu.Lock()
	asAsked := a.nonceAsked
	a.mu.Unlock()
	rs.mu.Lock()
	rsAsked := rs.nonceAsked
	rs.nonce = "rs-nonce-2" // the server rotates its nonce
	rs.mu.Unlock()
	if asAsked != 1 || rsAsked != 1 {
		t.Fatalf("nonce challenges: authorization server %d, MCP server %d; want one each", asAsked, rsAsked)
	}
	if res, err = c.CallTool(t.Context(), "echo", map[string]any{"text": "rotated"}); err != nil || res.Text() != "rotated" {
		t.Fatalf("echo after the nonce changed: %v %v", res, err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.nonceAsked != 2 {
		t.Fatalf("MCP server nonce challenges = %d, want 2", rs.nonceAsked)
	}
}

// A server that asks for a new nonce at every request gets its challenge
// back as an error after a bounded number of retries, not an endless loop.
func TestDPoPNonceRefusedEndsTheRequest(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAS(t)
	rs := newDPoPServer(t, a, "rs-nonce")
	c, err := oauthClient(t, rs.url, client.OAuthConfig{DPoP: key, MaxReauthorizations: 2})
	if err != nil {
		t.Fatal(err)
	}
	rs.mu.Lock()
	rs.rotate = true // from now on every answer names a nonce never seen
	served, asked := rs.served, rs.nonceAsked
	rs.mu.Unlock()
	_, err = c.CallTool(t.Context(), "echo", map[string]any{"text": "x"})
	var httpErr *client.HTTPError
	if !errors.As(err, &httpErr) || httpErr.Status != http.StatusUnauthorized {
		t.Fatalf("want the 401 challenge as an error, got %T %v", err, err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.served != served {
		t.Fatalf("the server served %d requests while refusing every proof", rs.served-served)
	}
	if n := rs.nonceAsked - asked; n != 3 {
		t.Fatalf("asked %d times, want 3 (the request and MaxReauthorizations retries)", n)
	}
}

// A workload takes its token with the JWT bearer grant (RFC 7523): no
// user, no browser; a refused assertion is an error, asked once, with no
// other grant tried.
func TestJWTBearerGrant(t *testing.T) {
	t.Parallel()
	a := newTestAS(t)
	a.assertion = "workload-identity-jwt"
	resource, _ := protected(t, a)
	assertion := func(_ context.Context, issuer, _ string) (string, error) {
		if issuer != a.ts.URL {
			return "", errors.New("asked for another issuer: " + issuer)
		}
		return "workload-identity-jwt", nil
	}
	c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(client.OAuthConfig{Assertion: assertion}))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if res, err := c.CallTool(t.Context(), "peek", nil); err != nil || res.Text() != "peeked" {
		t.Fatalf("peek: %v %v", res, err)
	}

	refused := newTestAS(t)
	refused.assertion = "another-jwt"
	resource, served := protected(t, refused)
	_, err = client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(client.OAuthConfig{
		Assertion: func(context.Context, string, string) (string, error) { return "workload-identity-jwt", nil }}))))
	if !errors.Is(err, client.ErrAuthorization) || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("a refused assertion: %v", err)
	}
	refused.mu.Lock()
	defer refused.mu.Unlock()
	if len(refused.grants) != 1 || refused.grants[0] != "urn:ietf:params:oauth:grant-type:jwt-bearer" || len(refused.asked) != 0 {
		t.Fatalf("token requests %v, authorization requests %d: want one JWT bearer request and nothing else", refused.grants, len(refused.asked))
	}
	if served.Load() != 0 {
		t.Fatalf("the server got %d requests with a token", served.Load())
	}
}

// Enterprise-managed authorization: the user's ID token is exchanged at
// the identity provider for an ID-JAG naming the authorization server
// and the MCP server, which the authorization server takes with the JWT
// bearer grant. A refused exchange reaches the caller and no token
// request is made.
func TestEnterpriseIdP(t *testing.T) {
	t.Parallel()
	a := newTestAS(t)
	resource, _ := protected(t, a)
	a.assertion = "id-jag:" + a.ts.URL + ":" + resource
	var exchanges []url.Values
	var mu sync.Mutex
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		exchanges = append(exchanges, r.PostForm)
		mu.Unlock()
		f := r.PostForm
		if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || f.Get("subject_token") != "the-users-id-token" ||
			f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
			f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" || f.Get("client_id") != "idp-client" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_request"}`))
			return
		}
		_, _ = w.Write([]byte(`{"access_token":"id-jag:` + f.Get("audience") + ":" + f.Get("resource") +
			`","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}`))
	}))
	t.Cleanup(idp.Close)
	enterprise := func(idToken string) client.OAuthConfig {
		return client.OAuthConfig{ClientID: "pre", ClientSecret: "pre-secret", Assertion: client.EnterpriseIdP{
			TokenEndpoint: idp.URL, ClientID: "idp-client",
			IDToken: func(context.Context) (string, error) { return idToken, nil }}.Assertion}
	}
	c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(enterprise("the-users-id-token")))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if res, err := c.CallTool(t.Context(), "peek", nil); err != nil || res.Text() != "peeked" {
		t.Fatalf("peek: %v %v", res, err)
	}
	a.mu.Lock()
	grants := slices.Clone(a.grants)
	a.mu.Unlock()
	if !slices.Equal(grants, []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}) {
		t.Fatalf("token requests at the authorization server: %v", grants)
	}

	_, err = client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(client.OAuth(enterprise("someone-elses-token")))))
	if !errors.Is(err, client.ErrAuthorization) || !strings.Contains(err.Error(), "token exchange answered 400") {
		t.Fatalf("a refused exchange: %v", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.grants) != 1 {
		t.Fatalf("the authorization server got %d token requests after a refused exchange", len(a.grants)-1)
	}
}
