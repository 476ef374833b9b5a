package server_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// accounts is the application's sign-in (its users and session cookie).
type accounts struct{}

func (accounts) Current(r *http.Request) (*server.Authentication, error) { return nil, nil }
func (accounts) LoginURL(_ *http.Request, req server.LoginRequest) string {
	return "/login?return=" + req.ReturnTo
}
func (accounts) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

// An authorization server on the application's own login, mounted on its
// router next to the MCP endpoint.
func Example() {
	as, err := server.New(server.Config{
		Issuer:    "https://notes.example.com",
		Login:     accounts{},
		Resources: []string{"https://notes.example.com/mcp"},
		Scopes:    []server.Scope{{Name: "notes:read", Description: "Read your notes"}},
	})
	if err != nil {
		panic(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	md := as.Metadata()
	fmt.Println(md.Issuer)
	fmt.Println(md.AuthorizationEndpoint)
	fmt.Println(md.TokenEndpoint)
	fmt.Println(md.CodeChallengeMethodsSupported, md.ClientIDMetadataDocumentSupported)
	// Output:
	// https://notes.example.com
	// https://notes.example.com/oauth/authorize
	// https://notes.example.com/oauth/token
	// [S256] true
}

// A confidential client is registered with the hash of its secret only.
func ExampleHashSecret() {
	hash, err := server.HashSecret("a long random secret")
	if err != nil {
		panic(err)
	}
	c := server.Client{ID: "reporting", SecretHash: hash, GrantTypes: []string{"client_credentials"}}
	fmt.Println(c.ID, len(c.SecretHash) > 0)
	// Output: reporting true
}

// A one-person sign-in, to try the whole OAuth path on this computer
// without an identity provider.
func ExampleNewDevLogin() {
	dev := server.NewDevLogin("dev", map[string]any{"name": "Developer"})
	as, err := server.New(server.Config{
		Issuer:    "http://127.0.0.1:8080",
		Login:     dev,
		Resources: []string{"http://127.0.0.1:8080/mcp"},
	})
	if err != nil {
		panic(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	dev.Mount(r) // the sign-in page at /dev-login
	fmt.Println(as.Metadata().AuthorizationEndpoint)
	// Output: http://127.0.0.1:8080/oauth/authorize
}
