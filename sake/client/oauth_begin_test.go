package client_test

import (
	"errors"
	"net"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
)

// protectedServer serves the vault server at /mcp behind an authorization
// server of its own that signs everyone in as ada.
func protectedServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	resource := base + "/mcp"
	as, err := server.New(server.Config{Issuer: base, Login: &autoLogin{}, Resources: []string{resource},
		Scopes: []server.Scope{{Name: "read"}}, DefaultScopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := as.Verifier(resource)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	r.Handle(auth.WellKnownPath(resource), as.ResourceMetadata(resource, "read").Handler())
	h := plug.New(sake.MustNew(vault{}), plug.Authorization(v, auth.MetadataURL(resource), "read"))
	t.Cleanup(func() { h.Close() })
	r.Handle("/mcp", h)
	ts := httptest.NewUnstartedServer(r)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	return resource
}

func TestBeginAndCompleteSignIn(t *testing.T) {
	t.Parallel()
	resource := protectedServer(t)
	redirect := "http://127.0.0.1:9/callback"
	base := client.OAuth(client.OAuthConfig{RedirectURL: redirect})
	p, err := base.BeginSignIn(t.Context(), resource)
	if err != nil {
		t.Fatal(err)
	}
	if p.Resource != resource || p.State == "" {
		t.Fatalf("pending = %+v", p)
	}
	back, err := consentingBrowser(redirect)(t.Context(), p.URL)
	if err != nil {
		t.Fatal(err)
	}
	store := client.MemoryTokenStore()
	user := base.WithStore(store)

	// A callback with another state completes nothing.
	forged := *back
	q := forged.Query()
	q.Set("state", "another")
	forged.RawQuery = q.Encode()
	if _, err := user.CompleteSignIn(t.Context(), p, &forged); !errors.Is(err, client.ErrAuthorization) {
		t.Fatalf("a callback with another state: err = %v, want ErrAuthorization", err)
	}
	if tok, _ := store.Load(t.Context(), resource); tok != nil {
		t.Fatal("a refused callback kept a token")
	}

	tok, err := user.CompleteSignIn(t.Context(), p, back)
	if err != nil {
		t.Fatal(err)
	}
	if kept, _ := store.Load(t.Context(), resource); kept == nil || kept.AccessToken != tok.AccessToken {
		t.Fatal("the token is not in the user's store")
	}
	// The user's authorizer calls the server with the token.
	c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(user)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "peek", nil); err != nil {
		t.Fatal(err)
	}
	// The same code again is refused by the authorization server.
	if _, err := base.WithStore(client.MemoryTokenStore()).CompleteSignIn(t.Context(), p, back); err == nil {
		t.Fatal("a code was traded twice")
	}
}

func TestBeginSignInNeedsRedirectAndPinnedIssuer(t *testing.T) {
	t.Parallel()
	resource := protectedServer(t)
	if _, err := client.OAuth(client.OAuthConfig{}).BeginSignIn(t.Context(), resource); !errors.Is(err, client.ErrAuthorization) {
		t.Fatalf("no RedirectURL: err = %v", err)
	}
	pinned := client.OAuth(client.OAuthConfig{RedirectURL: "http://127.0.0.1:9/cb", Issuer: "https://elsewhere.example"})
	if _, err := pinned.BeginSignIn(t.Context(), resource); !errors.Is(err, client.ErrAuthorization) {
		t.Fatalf("another issuer: err = %v", err)
	}
	if _, err := pinned.CompleteSignIn(t.Context(), nil, &url.URL{}); !errors.Is(err, client.ErrAuthorization) {
		t.Fatalf("no pending sign-in: err = %v", err)
	}
}

// TestRefreshAsTheClientTheTokenWasIssuedTo: two processes sharing a
// token store, each registered at the authorization server on its own:
// the second refreshes a token the first obtained as the first's client,
// not its own (the authorization server would refuse that).
func TestRefreshAsTheClientTheTokenWasIssuedTo(t *testing.T) {
	t.Parallel()
	resource := protectedServer(t)
	redirect := "http://127.0.0.1:9/callback"
	store := client.MemoryTokenStore()
	first := client.OAuth(client.OAuthConfig{RedirectURL: redirect, OfflineAccess: true})
	p, err := first.BeginSignIn(t.Context(), resource)
	if err != nil {
		t.Fatal(err)
	}
	back, err := consentingBrowser(redirect)(t.Context(), p.URL)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := first.WithStore(store).CompleteSignIn(t.Context(), p, back)
	if err != nil || tok.RefreshToken == "" {
		t.Fatalf("token %+v, %v: want a refresh token", tok, err)
	}
	second := client.OAuth(client.OAuthConfig{RedirectURL: redirect, OfflineAccess: true})
	if _, err := second.BeginSignIn(t.Context(), resource); err != nil { // registers the second client
		t.Fatal(err)
	}
	spoiled := *tok
	spoiled.AccessToken = "refused"
	if err := store.Save(t.Context(), resource, &spoiled); err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(t.Context(), client.HTTP(resource, nil, client.WithAuthorizer(second.WithStore(store))))
	if err != nil {
		t.Fatalf("the second process could not refresh the first's token: %v", err)
	}
	defer c.Close()
	if now, _ := store.Load(t.Context(), resource); now.AccessToken == "refused" || now.ClientID != tok.ClientID {
		t.Fatalf("token after the refresh: %+v", now)
	}
}
