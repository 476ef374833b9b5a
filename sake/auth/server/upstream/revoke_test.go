package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// revokedAt waits for the provider's next revocation request and checks
// it revokes token (of hint) with the application's credentials in a
// Basic header.
func (h *harness) revokedAt(token, hint string) revokeRequest {
	h.t.Helper()
	rr := <-h.op.revocations
	if rr.form.Get("token") != token || rr.form.Get("token_type_hint") != hint {
		h.t.Fatalf("the provider was asked to revoke %q (%s), want %q (%s)", rr.form.Get("token"), rr.form.Get("token_type_hint"), token, hint)
	}
	if !rr.basic || rr.basicID != h.op.clientID || rr.basicSecret != h.op.secret || rr.form.Has("client_secret") {
		h.t.Fatalf("client authentication: basic %v %q, form %v", rr.basic, rr.basicID, rr.form)
	}
	return rr
}

// nothingRevoked checks the provider was asked to revoke nothing, once
// the revocations under way are done.
func (h *harness) nothingRevoked() {
	h.t.Helper()
	h.login.waitRevocations()
	select {
	case rr := <-h.op.revocations:
		h.t.Fatalf("the provider was asked to revoke %v", rr.form)
	default:
	}
}

func (h *harness) revoke(token string) {
	h.t.Helper()
	resp, _ := h.post(h.issuer+"/oauth/revoke", url.Values{"token": {token}, "client_id": {mcpClientID}})
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("revoke: %d", resp.StatusCode)
	}
}

// Each way Sake revokes an authorization revokes its upstream token at
// the provider: its refresh token, with the application's credentials.
func TestRevocationReachesTheProvider(t *testing.T) {
	t.Run("revocation endpoint, refresh token", func(t *testing.T) {
		h := newHarness(t)
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		h.revoke(tb["refresh_token"].(string))
		h.revokedAt(rt, "refresh_token")
		h.nothingRevoked()
	})
	t.Run("revocation endpoint, access token", func(t *testing.T) {
		h := newHarness(t)
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		h.revoke(tb["access_token"].(string))
		h.revokedAt(rt, "refresh_token")
		h.nothingRevoked()
	})
	t.Run("replayed refresh token", func(t *testing.T) {
		h := newHarness(t)
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		refresh := func() int {
			resp, _ := h.post(h.issuer+"/oauth/token", url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {tb["refresh_token"].(string)}, "client_id": {mcpClientID}})
			return resp.StatusCode
		}
		if st := refresh(); st != http.StatusOK {
			t.Fatalf("refresh: %d", st)
		}
		h.nothingRevoked() // a refresh revokes nothing
		if st := refresh(); st != http.StatusBadRequest {
			t.Fatalf("replayed refresh: %d", st)
		}
		h.revokedAt(rt, "refresh_token")
		// Revoked once: revoking the family again asks nothing more.
		h.revoke(tb["refresh_token"].(string))
		h.nothingRevoked()
	})
	t.Run("sign-out", func(t *testing.T) {
		h := newHarness(t)
		_, q := authorizeParams()
		h.signIn(q)
		rt := h.op.liveRefreshToken()
		if resp, _ := h.post(h.issuer+"/login/logout", url.Values{}); resp.StatusCode != http.StatusOK {
			t.Fatalf("logout: %d", resp.StatusCode)
		}
		h.revokedAt(rt, "refresh_token")
		h.nothingRevoked()
	})
	t.Run("no refresh token: the access token", func(t *testing.T) {
		op := newTestProvider(t)
		h := newHarnessAt(t, op)
		tb := h.tokens()
		id, err := h.identity(tb["access_token"].(string))
		if err != nil {
			t.Fatal(err)
		}
		// Forget the refresh token the provider gave, as a provider
		// that gives none.
		tok, err := h.login.Token(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		fam := h.family(tb["access_token"].(string))
		rec, _, err := h.login.openRecord(context.Background(), fam)
		if err != nil {
			t.Fatal(err)
		}
		rec.Token.RefreshToken = ""
		if err := h.login.putRecord(context.Background(), fam, rec, h.login.now().Add(DefaultTokenTTL)); err != nil {
			t.Fatal(err)
		}
		h.revoke(tb["access_token"].(string))
		h.revokedAt(tok.AccessToken, "access_token")
	})
	for name, set := range map[string]func(*testProvider){
		"client_secret_post":                       func(p *testProvider) { p.revokeMethods = []string{"client_secret_post"} },
		"client_secret_post at the token endpoint": func(p *testProvider) { p.tokenMethods = []string{"client_secret_post"} },
	} {
		t.Run(name, func(t *testing.T) {
			op := newTestProvider(t)
			set(op)
			h := newHarnessAt(t, op)
			tb := h.tokens()
			rt := h.op.liveRefreshToken()
			h.revoke(tb["refresh_token"].(string))
			rr := <-h.op.revocations
			if rr.basic || rr.form.Get("token") != rt || rr.form.Get("client_id") != op.clientID || rr.form.Get("client_secret") != op.secret {
				t.Fatalf("revocation %v (basic %v)", rr.form, rr.basic)
			}
		})
	}
	t.Run("client_secret_basic listed too", func(t *testing.T) {
		op := newTestProvider(t)
		op.revokeMethods = []string{"client_secret_post", "client_secret_basic"}
		h := newHarnessAt(t, op)
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		h.revoke(tb["refresh_token"].(string))
		h.revokedAt(rt, "refresh_token")
	})
	t.Run("public client", func(t *testing.T) {
		op := newTestProvider(t)
		op.secret = ""
		h := newHarnessAt(t, op, func(c *Config) { c.ClientSecret = "" })
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		h.revoke(tb["refresh_token"].(string))
		rr := <-h.op.revocations
		if rr.basic || rr.form.Get("token") != rt || rr.form.Get("client_id") != op.clientID || rr.form.Has("client_secret") {
			t.Fatalf("revocation %v (basic %v)", rr.form, rr.basic)
		}
	})
}

// family is the authorization family of an access token of Sake.
func (h *harness) family(access string) string {
	h.t.Helper()
	claims := jwtClaims(h.t, access)
	c, err := h.store.Credential(context.Background(), hash(claims["jti"].(string)))
	if err != nil {
		h.t.Fatal(err)
	}
	return c.Family
}

func TestProviderWithoutRevocationEndpoint(t *testing.T) {
	op := newTestProvider(t)
	op.noRevocation = true
	h := newHarnessAt(t, op)
	_, q := authorizeParams()
	h.signIn(q)
	if resp, _ := h.post(h.issuer+"/login/logout", url.Values{}); resp.StatusCode != http.StatusOK {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	h.nothingRevoked()
	tb := h.tokens()
	h.revoke(tb["refresh_token"].(string))
	h.nothingRevoked()
}

// A provider that hangs or fails neither holds nor fails Sake's
// revocation; the failure is logged, never the token.
func TestProviderRevocationFailures(t *testing.T) {
	t.Run("hangs", func(t *testing.T) {
		op := newTestProvider(t)
		hang := make(chan struct{})
		op.revokeHang = hang
		h := newHarnessAt(t, op)
		t.Cleanup(func() { close(hang); h.login.waitRevocations() })
		tb := h.tokens()
		id, err := h.identity(tb["access_token"].(string))
		if err != nil {
			t.Fatal(err)
		}
		rt := h.op.liveRefreshToken()
		h.revoke(tb["refresh_token"].(string)) // answered while the provider hangs
		if _, err := h.login.Token(context.Background(), id); !errors.Is(err, ErrNoToken) {
			t.Fatalf("Token after revocation: %v", err)
		}
		h.revokedAt(rt, "refresh_token")
	})
	t.Run("times out", func(t *testing.T) {
		op := newTestProvider(t)
		hang := make(chan struct{})
		op.revokeHang = hang
		h := newHarnessAt(t, op, func(c *Config) { c.RevocationTimeout = 1 })
		t.Cleanup(func() { close(hang) })
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		h.revoke(tb["refresh_token"].(string))
		h.login.waitRevocations() // ends at the timeout, not when the provider answers
		h.wantLogged("revoking a token at the provider", rt)
	})
	t.Run("fails", func(t *testing.T) {
		op := newTestProvider(t)
		op.revokeStatus = http.StatusServiceUnavailable
		h := newHarnessAt(t, op)
		tb := h.tokens()
		rt := h.op.liveRefreshToken()
		h.revoke(tb["refresh_token"].(string))
		h.revokedAt(rt, "refresh_token")
		h.login.waitRevocations()
		h.wantLogged("503 temporarily_unavailable", rt)
	})
	t.Run("too many at once", func(t *testing.T) {
		op := newTestProvider(t)
		hang := make(chan struct{})
		op.revokeHang = hang
		h := newHarnessAt(t, op, func(c *Config) { c.MaxRevocations = 1 })
		t.Cleanup(func() { close(hang); h.login.waitRevocations() })
		first := h.tokens()
		second := h.tokens()
		h.revoke(first["refresh_token"].(string))
		<-h.op.revocations // under way, held by the provider
		h.revoke(second["refresh_token"].(string))
		h.wantLogged("too many revocations under way", "rt-")
		if _, err := h.store.LatestUpstreamToken(context.Background(), h.op.issuer()+"#alice-1"); !errors.Is(err, server.ErrNotFound) {
			t.Fatalf("an upstream token is still kept: %v", err)
		}
	})
}

// wantLogged checks the login logged want, and never secret.
func (h *harness) wantLogged(want, secret string) {
	h.t.Helper()
	logs := h.logs.String()
	if !strings.Contains(logs, want) || strings.Contains(logs, secret) {
		h.t.Fatalf("logs (want %q, never %q):\n%s", want, secret, logs)
	}
}

func TestGitHubTokenDeletedOnSignOut(t *testing.T) {
	deleted := make(chan string, 4)
	gh := fakeGitHub(t, deleted)
	h := newHarness(t, func(c *Config) {
		c.Provider = GitHubAt(gh.URL, gh.URL+"/api")
		c.ClientID, c.ClientSecret = "gh-app", "gh-secret"
	})
	if resp, body := h.throughGitHub(gh.URL); !h.as.IsReturnURL(h.location(resp, body)) {
		t.Fatal("not back at the consent")
	}
	if resp, _ := h.post(h.issuer+"/login/logout", url.Values{}); resp.StatusCode != http.StatusOK {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	if got, want := <-deleted, `gh-app gh-app:gh-secret {"access_token":"gho_123"}`; got != want {
		t.Fatalf("GitHub was asked %q, want %q", got, want)
	}
}
