package upstream_test

import (
	"context"
	"fmt"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/upstream"
)

// People sign in with GitHub, members of one organisation only; Sake's
// authorization server does the rest for MCP clients.
func Example() {
	store := server.NewMemoryStore()
	login, err := upstream.New(context.Background(), upstream.Config{
		Provider:     upstream.GitHub(),
		ClientID:     "Iv1.0123456789abcdef",
		ClientSecret: "the app's client secret",
		BaseURL:      "https://notes.example.com/login",
		Scopes:       []string{"read:org"},
		Allow:        []upstream.Rule{upstream.AllowOrganizations("example-org")},
		Store:        store,
	})
	if err != nil {
		panic(err)
	}
	as, err := server.New(server.Config{
		Issuer:    "https://notes.example.com",
		Login:     login,
		Store:     store,
		Resources: []string{"https://notes.example.com/mcp"},
	})
	if err != nil {
		panic(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	login.Mount(r) // /login, /login/callback, /login/logout
	fmt.Println(login.CallbackURL())
	// Output: https://notes.example.com/login/callback
}

// repos is a tool set that calls GitHub as the person calling the tool.
type repos struct{ login *upstream.Login }

// Starred lists the caller's starred repositories at GitHub.
func (x *repos) Starred(ctx *sake.Context) (string, error) {
	hc, err := x.login.HTTPClient(ctx, ctx.Identity())
	if err != nil {
		return "", err // upstream.ErrNoToken, upstream.ErrSignInAgain
	}
	resp, err := hc.Get("https://api.github.com/user/starred")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return resp.Status, nil
}

// A tool acts as its caller at the provider with Login.Token or
// Login.HTTPClient.
func ExampleLogin_HTTPClient() {
	var login *upstream.Login // from upstream.New
	srv, err := sake.New(&repos{login: login})
	if err != nil {
		panic(err)
	}
	_ = srv
}
