package gateway_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPerUserCallbackRefusesStatesNotOpen: a callback whose state the
// gateway never gave, or gave and saw used, is answered 400 and signs
// nobody in.
func TestPerUserCallbackRefusesStatesNotOpen(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	g, public, _ := perUserGateway(t, remote.url)
	var used string
	ann := saketest.Connect(t, g.Server(), saketest.Subject("ann"), saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
		_, used = visit(t, "ann", r.URL)
		return saketest.Accept(nil)
	}))
	if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
		t.Fatal(err)
	}
	for name, u := range map[string]string{
		"unknown":  public + gateway.CallbackPath + "?state=forged&code=x",
		"no state": public + gateway.CallbackPath + "?code=x",
		"replayed": used,
		"too long": public + gateway.CallbackPath + "?code=x&state=" + strings.Repeat("a", 300),
	} {
		status, body := get(t, u)
		if status != http.StatusBadRequest || !strings.Contains(body, "not open") {
			t.Errorf("%s state: %d %q, want 400 saying it is not open", name, status, body)
		}
	}
	if resp, err := http.Post(public+gateway.CallbackPath, "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the callback: %v %v", resp, err)
	}
}

// TestPerUserTokenGoesToWhoeverWasAsked: a sign-in the gateway asked ann
// for, completed in bob's browser, gives ann the token (the state binds
// it) and bob none: bob is still asked to sign in himself.
func TestPerUserTokenGoesToWhoeverWasAsked(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	g, _, _ := perUserGateway(t, remote.url)
	ann := saketest.Connect(t, g.Server(), saketest.Subject("ann"), saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
		visit(t, "bob", r.URL) // bob's browser, signed in as bob at the remote
		return saketest.Accept(nil)
	}))
	if _, err := ann.CallTool("accounts_sign_in", nil); err != nil {
		t.Fatal(err)
	}
	var bobAsked atomic.Int32
	bob := saketest.Connect(t, g.Server(), saketest.Subject("bob"), signingIn(t, "bob", &bobAsked))
	if res, err := bob.CallTool("accounts_whoami", nil); err != nil || res.Text() != "bob" || bobAsked.Load() != 1 {
		t.Fatalf("bob: %v, %v, asked %d times; want bob's own sign-in", res, err, bobAsked.Load())
	}
}

// TestPerUserAsksAClientWithoutURLElicitationWithAnError: a 2025-11-25
// client that cannot open a URL gets -32042 with the page, and its call
// again, once signed in there, goes through.
func TestPerUserAsksAClientWithoutURLElicitationWithAnError(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	g, _, _ := perUserGateway(t, remote.url)
	cy := saketest.Connect(t, g.Server(), saketest.Legacy(), saketest.Subject("cy"))
	_, err := cy.CallTool("accounts_sign_in", nil)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != gateway.CodeURLElicitationRequired {
		t.Fatalf("err = %v, want %d", err, gateway.CodeURLElicitationRequired)
	}
	raw, _ := json.Marshal(e.Data)
	var data struct {
		Elicitations []protocol.ElicitRequest `json:"elicitations"`
	}
	if err := json.Unmarshal(raw, &data); err != nil || len(data.Elicitations) != 1 || data.Elicitations[0].Mode != "url" || data.Elicitations[0].ElicitationID == "" {
		t.Fatalf("data = %s", raw)
	}
	if status, _ := visit(t, "cy", data.Elicitations[0].URL); status != http.StatusOK {
		t.Fatalf("callback: %d", status)
	}
	if res, err := cy.CallTool("accounts_sign_in", nil); err != nil || !strings.Contains(res.Text(), "Signed in") {
		t.Fatalf("again: %v, %v", res, err)
	}
	if res, err := cy.CallTool("accounts_whoami", nil); err != nil || res.Text() != "cy" {
		t.Fatalf("whoami: %v, %v", res, err)
	}
}

// TestPerUserDeclinedOrExpiredSignInSignsNobodyIn: a declined sign-in
// ends the call with an error; one whose link expired is refused at the
// callback; neither leaves a token.
func TestPerUserDeclinedOrExpiredSignInSignsNobodyIn(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		remote := newAccounts(t)
		g, _, _ := perUserGateway(t, remote.url)
		dee := saketest.Connect(t, g.Server(), append(opts, saketest.Subject("dee"), saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
			return saketest.Decline()
		}))...)
		if _, err := dee.CallTool("accounts_sign_in", nil); err == nil || !strings.Contains(err.Error(), "not accepted (decline)") {
			t.Fatalf("declined: %v", err)
		}

		expired, _, _ := perUserGateway(t, remote.url, gateway.SignIns(time.Nanosecond, 0))
		var status int
		eve := saketest.Connect(t, expired.Server(), append(opts, saketest.Subject("eve"), saketest.OnInput(func(r protocol.ElicitRequest) protocol.ElicitResult {
			status, _ = visit(t, "eve", r.URL)
			return saketest.Accept(nil)
		}))...)
		if _, err := eve.CallTool("accounts_sign_in", nil); err == nil {
			t.Fatal("an expired sign-in signed eve in")
		}
		if status != http.StatusBadRequest {
			t.Fatalf("the expired link's callback answered %d, want 400", status)
		}
		if len(remote.seen()) != 0 {
			t.Fatalf("the remote was called: %v", remote.seen())
		}
	})
}

// TestPerUserEntryNeedsAVaultAndAPublicURL: a gateway with a per-user
// entry does not start without them, and the entry's configuration is
// checked.
func TestPerUserEntryNeedsAVaultAndAPublicURL(t *testing.T) {
	t.Parallel()
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {"a": {"url": "http://127.0.0.1:9/mcp", "oauth": {"perUser": true}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "UserTokens") {
		t.Fatalf("New without a vault: %v", err)
	}
	for _, bad := range []string{
		`{"mcpServers": {"a": {"command": "x", "oauth": {"perUser": true}}}}`,
		`{"mcpServers": {"a": {"url": "http://x", "namespace": "", "oauth": {"perUser": true}}}}`,
		`{"mcpServers": {"a": {"url": "http://x", "oauth": {"perUser": true, "clientSecret": "s"}}}}`,
	} {
		if _, err := gateway.ParseConfig([]byte(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

// TestPerUserSignsInAtThePinnedIssuerAlone: with "issuer", a per-user
// entry registers and signs in there; a server whose authorization
// server is another is refused before anyone is asked anything.
func TestPerUserSignsInAtThePinnedIssuerAlone(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	issuer := strings.TrimSuffix(remote.url, "/mcp")
	g, _, _ := perUserGatewayOAuth(t, remote.url, fmt.Sprintf(`{"perUser": true, "issuer": %q, "scopes": ["read"]}`, issuer))
	var asked atomic.Int32
	ann := saketest.Connect(t, g.Server(), saketest.Subject("ann"), signingIn(t, "ann", &asked))
	if res, err := ann.CallTool("accounts_sign_in", nil); err != nil || asked.Load() != 1 {
		t.Fatalf("at the pinned issuer: %v, %v", res, err)
	}

	other, _, _ := perUserGatewayOAuth(t, remote.url, `{"perUser": true, "issuer": "https://elsewhere.example.com"}`)
	var bobAsked atomic.Int32
	bob := saketest.Connect(t, other.Server(), saketest.Subject("bob"), signingIn(t, "bob", &bobAsked))
	if _, err := bob.CallTool("accounts_sign_in", nil); err == nil || !strings.Contains(err.Error(), "elsewhere.example.com") || bobAsked.Load() != 0 {
		t.Fatalf("another issuer: %v (asked %d times)", err, bobAsked.Load())
	}
}

// TestPerUserEntryAddedByAReloadNeedsTheVault: a reload cannot add a
// per-user entry to a gateway started without UserTokens and PublicURL
// (its lists would not be filtered per caller); one started with them
// takes it.
func TestPerUserEntryAddedByAReloadNeedsTheVault(t *testing.T) {
	t.Parallel()
	remote := newAccounts(t)
	plain := versionedRemote(t, "1.0")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"plain": {"url": %q}}}`, plain))
	err := g.Apply(parse(t, fmt.Sprintf(`{"mcpServers": {"plain": {"url": %q}, "accounts": {"url": %q, "oauth": {"perUser": true}}}}`, plain, remote.url)))
	if err == nil || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("a per-user entry added to a gateway without a vault: %v", err)
	}

	withVault, _, _ := perUserGateway(t, remote.url)
	if err := withVault.Apply(parse(t, fmt.Sprintf(`{"mcpServers": {"plain": {"url": %q}, "accounts": {"url": %q, "oauth": {"perUser": true}}}}`, plain, remote.url))); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	ann := saketest.Connect(t, withVault.Server(), saketest.Subject("ann"), signingIn(t, "ann", &asked))
	if res, err := ann.CallTool("accounts_sign_in", nil); err != nil || asked.Load() != 1 {
		t.Fatalf("after the reload: %v, %v", res, err)
	}
}
