package storetest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

const (
	revIssuer   = "https://as.example"
	revResource = "https://mcp.example/mcp"
	revClient   = "app"
	revRedirect = "http://127.0.0.1/callback"
	revScope    = "notes"
)

// Revocation checks, through two authorization servers on a and b (two
// replicas on one shared storage; pass one store twice for a single
// process), that an access token revoked through a is refused by the MCP
// endpoints of both at once, 401 invalid_token: after a replayed
// authorization code, after a replayed refresh token, and after
// /oauth/revoke of the refresh token or of the access token. Tokens of
// another authorization keep working.
//
// settle, when not nil, waits until b has heard of every revocation
// committed so far (a change feed between replicas); it must wait on the
// feed itself, never sleep.
func Revocation(t *testing.T, a, b server.Store, settle func(t *testing.T)) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	ra := newReplica(t, a, key, secret)
	rb := newReplica(t, b, key, secret)
	if err := a.PutConsent(context.Background(), "alice", revClient, []string{revScope}); err != nil {
		t.Fatal(err)
	}
	wait := func(t *testing.T) {
		t.Helper()
		if settle != nil {
			settle(t)
		}
	}
	refused := func(t *testing.T, tokens ...string) {
		t.Helper()
		for _, r := range []*replica{ra, rb} {
			for _, at := range tokens {
				r.refuses(t, at)
			}
		}
	}
	accepted := func(t *testing.T, tokens ...string) {
		t.Helper()
		for _, r := range []*replica{ra, rb} {
			for _, at := range tokens {
				r.accepts(t, at, "sub:alice")
			}
		}
	}
	// A bystander: its authorization is never revoked.
	bystander := rb.redeem(t, ra.code(t))
	accepted(t, bystander.access)

	t.Run("replayed code", func(t *testing.T) {
		code := ra.code(t)
		tok := rb.redeem(t, code)
		accepted(t, tok.access)
		if st, m := ra.token(t, redemption(code)); st != http.StatusBadRequest || m["error"] != "invalid_grant" {
			t.Fatalf("replayed code: %d %v, want 400 invalid_grant", st, m)
		}
		wait(t)
		refused(t, tok.access)
	})
	t.Run("replayed refresh token", func(t *testing.T) {
		first := rb.redeem(t, ra.code(t))
		second := rb.refresh(t, first.refresh)
		accepted(t, first.access, second.access)
		if st, m := ra.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.refresh}}); st != http.StatusBadRequest || m["error"] != "invalid_grant" {
			t.Fatalf("replayed refresh token: %d %v, want 400 invalid_grant", st, m)
		}
		wait(t)
		refused(t, first.access, second.access)
	})
	t.Run("revoked refresh token", func(t *testing.T) {
		tok := rb.redeem(t, ra.code(t))
		accepted(t, tok.access)
		ra.revoke(t, tok.refresh)
		wait(t)
		refused(t, tok.access)
	})
	t.Run("revoked access token", func(t *testing.T) {
		tok := rb.redeem(t, ra.code(t))
		accepted(t, tok.access)
		ra.revoke(t, tok.access)
		wait(t)
		refused(t, tok.access)
		if st, m := rb.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.refresh}}); st != http.StatusBadRequest || m["error"] != "invalid_grant" {
			t.Fatalf("refresh after its access token was revoked: %d %v, want 400 invalid_grant", st, m)
		}
	})
	accepted(t, bystander.access)
}

// replica is one authorization server with its MCP endpoint.
type replica struct {
	as  *server.Server
	srv *httptest.Server // the authorization server's endpoints
	mcp *httptest.Server // the MCP endpoint, behind the server's verifier
	hc  *http.Client
}

func newReplica(t *testing.T, store server.Store, key crypto.Signer, secret []byte) *replica {
	t.Helper()
	as, err := server.New(server.Config{
		Issuer: revIssuer, Login: aliceLogin{}, Store: store, Resources: []string{revResource},
		Scopes:      []server.Scope{{Name: revScope, Description: "Read notes"}},
		Clients:     []server.Client{{ID: revClient, RedirectURIs: []string{revRedirect}}},
		SigningKeys: []crypto.Signer{key}, Secret: secret, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(revResource)
	if err != nil {
		t.Fatal(err)
	}
	h := plug.New(sake.MustNew(whoami{}), plug.Authorization(v, auth.MetadataURL(revResource)))
	t.Cleanup(h.Close)
	r := &replica{as: as, srv: httptest.NewServer(as.Handler()), mcp: httptest.NewServer(h)}
	t.Cleanup(r.srv.Close)
	t.Cleanup(r.mcp.Close)
	r.hc = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return r
}

// authCode is an authorization code and its PKCE verifier.
type authCode struct{ code, verifier string }

// code runs an authorization for alice (signed in, consent remembered)
// and returns the code.
func (r *replica) code(t *testing.T) authCode {
	t.Helper()
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier := base64.RawURLEncoding.EncodeToString(b)
	q := url.Values{"response_type": {"code"}, "client_id": {revClient}, "redirect_uri": {revRedirect},
		"code_challenge": {server.S256(verifier)}, "code_challenge_method": {"S256"}, "state": {"s"},
		"scope": {revScope}, "resource": {revResource}}
	resp, err := r.hc.Get(r.srv.URL + "/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusSeeOther || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %d to %q, want a redirect with a code", resp.StatusCode, resp.Header.Get("Location"))
	}
	return authCode{loc.Query().Get("code"), verifier}
}

type tokens struct{ access, refresh string }

func (r *replica) token(t *testing.T, form url.Values) (int, map[string]any) {
	t.Helper()
	form.Set("client_id", revClient)
	resp, err := r.hc.PostForm(r.srv.URL+"/oauth/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func (r *replica) tokens(t *testing.T, form url.Values) tokens {
	t.Helper()
	st, m := r.token(t, form)
	at, _ := m["access_token"].(string)
	rt, _ := m["refresh_token"].(string)
	if st != http.StatusOK || at == "" || rt == "" {
		t.Fatalf("token endpoint: %d %v", st, m)
	}
	return tokens{at, rt}
}

func (r *replica) redeem(t *testing.T, c authCode) tokens {
	t.Helper()
	return r.tokens(t, redemption(c))
}

func redemption(c authCode) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {c.code}, "code_verifier": {c.verifier},
		"redirect_uri": {revRedirect}}
}

func (r *replica) refresh(t *testing.T, rt string) tokens {
	t.Helper()
	return r.tokens(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
}

func (r *replica) revoke(t *testing.T, tok string) {
	t.Helper()
	resp, err := r.hc.PostForm(r.srv.URL+"/oauth/revoke", url.Values{"token": {tok}, "client_id": {revClient}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
}

// call calls the whoami tool with the access token.
func (r *replica) call(t *testing.T, at string) (*http.Response, string) {
	t.Helper()
	body := string(protocol.AppendRequest(nil, []byte("1"), "tools/call",
		[]byte(`{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)))
	req, _ := http.NewRequest(http.MethodPost, r.mcp.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "whoami")
	req.Header.Set("Authorization", "Bearer "+at)
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func (r *replica) accepts(t *testing.T, at, owner string) {
	t.Helper()
	resp, body := r.call(t, at)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "owner "+owner) {
		t.Fatalf("MCP endpoint: %d %s, want 200 for the owner %s", resp.StatusCode, body, owner)
	}
}

func (r *replica) refuses(t *testing.T, at string) {
	t.Helper()
	resp, body := r.call(t, at)
	ch := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(ch, `error="invalid_token"`) {
		t.Fatalf("MCP endpoint with a revoked token: %d, WWW-Authenticate %q, body %s; want 401 invalid_token", resp.StatusCode, ch, body)
	}
	if strings.Contains(body, "owner ") {
		t.Fatalf("the tool ran with a revoked token: %s", body)
	}
}

// aliceLogin has alice signed in on every request.
type aliceLogin struct{}

func (aliceLogin) Current(*http.Request) (*server.Authentication, error) {
	return &server.Authentication{Subject: "alice", AuthTime: time.Now()}, nil
}
func (aliceLogin) LoginURL(*http.Request, server.LoginRequest) string { return "/login" }
func (aliceLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

// whoami is the MCP server behind the endpoint.
type whoami struct{}

// Whoami answers the caller's owner key.
func (whoami) Whoami(ctx *sake.Context) (string, error) {
	return "owner " + ctx.Identity().Owner(), nil
}
