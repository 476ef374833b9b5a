package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/sakemcp/sake-go/sake/auth"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// A server whose authorization server publishes a JWKS.
func ExampleNewJWTVerifier() {
	const resource = "https://mcp.example.com/mcp"
	ctx := context.Background()
	md, err := auth.Discover(ctx, "https://auth.example.com", nil)
	if err != nil {
		log.Fatal(err)
	}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{
		Issuer:   md.Issuer,
		Audience: []string{resource},
		Keys:     auth.NewJWKS(md.JWKSURI, nil),
		Principal: func(ctx context.Context, id *protocol.Identity) (any, error) {
			return "user:" + id.Subject, nil // load the host's user here
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = v
}

// Protecting an endpoint and serving its Protected Resource Metadata.
func ExampleMiddleware() {
	const resource = "https://mcp.example.com/mcp"
	secret := []byte("0123456789abcdef0123456789abcdef") // from a secret store
	v, err := auth.NewJWTVerifier(auth.JWTConfig{
		Issuer: "https://mcp.example.com", Audience: []string{resource}, HMACSecret: secret,
	})
	if err != nil {
		log.Fatal(err)
	}
	prm := &auth.ResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{"https://mcp.example.com"},
		ScopesSupported:      []string{"notes:read"},
	}
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello", auth.IdentityFrom(r.Context()).Subject)
	})
	mux := http.NewServeMux()
	mux.Handle(auth.WellKnownPath(resource), prm.Handler())
	mux.Handle("/mcp", auth.Middleware(v, auth.MetadataURL(resource), []string{"notes:read"})(mcp))
	_ = mux
}

// Minting a token the server's own verifier accepts, as the in-memory test
// client does.
func ExampleIssuer_Issue() {
	const resource = "https://mcp.example.com/mcp"
	secret := []byte("0123456789abcdef0123456789abcdef")
	iss := &auth.Issuer{Issuer: "https://mcp.example.com", Secret: secret, Audience: resource, TTL: time.Minute}
	token, err := iss.Issue("alice", "test-client", []string{"notes:read"}, "", time.Time{}, "")
	if err != nil {
		log.Fatal(err)
	}
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.Issuer, Audience: []string{resource}, HMACSecret: secret})
	if err != nil {
		log.Fatal(err)
	}
	id, err := v.Verify(context.Background(), &auth.TokenRequest{Token: token, Scheme: auth.SchemeBearer})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id.Subject, id.ClientID, id.Scopes)
	// Output: alice test-client [notes:read]
}

// Answering a missing scope from inside a handler.
func ExampleError_Challenge() {
	e := auth.InsufficientScope([]string{"notes:read", "notes:write"})
	fmt.Println(e.Status)
	fmt.Println(e.Challenge("Bearer", auth.MetadataURL("https://x/mcp")))
	// Output:
	// 403
	// Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"
}

// RFC 9470 step-up: the sign-in is too old.
func ExampleInsufficientAuthentication() {
	maxAge := 5 * time.Minute
	e := auth.InsufficientAuthentication([]string{"urn:example:mfa"}, &maxAge)
	fmt.Println(e.Challenge("Bearer", ""))
	// Output: Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa", max_age="300"
}

func ExampleWellKnownPath() {
	fmt.Println(auth.WellKnownPath("https://example.com/public/mcp"))
	fmt.Println(auth.MetadataURL("https://example.com/public/mcp"))
	// Output:
	// /.well-known/oauth-protected-resource/public/mcp
	// https://example.com/.well-known/oauth-protected-resource/public/mcp
}

// A tool sees who acts for the person: the act chain of a token obtained
// by token exchange, the party acting now first.
func ExampleActors() {
	id := &protocol.Identity{Subject: "ada", ClientID: "server-b", Claims: map[string]any{
		"act": map[string]any{"sub": "server-b", "act": map[string]any{"sub": "server-a"}},
	}}
	for _, a := range auth.Actors(id) {
		fmt.Println(a.Subject)
	}
	fmt.Println(auth.Actors(&protocol.Identity{Subject: "ada"}) == nil)
	// Output:
	// server-b
	// server-a
	// true
}
