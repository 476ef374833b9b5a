package server_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/auth/server"
)

// A resource server that may exchange the tokens sent to it for tokens
// for another server of the same authorization server, and the Exchanger
// its tools use to call that server as their caller.
func ExampleExchanger() {
	const notes, calendar = "https://notes.example.com/mcp", "https://calendar.example.com/mcp"
	hash, err := server.HashSecret("the notes server's secret")
	if err != nil {
		panic(err)
	}
	as, err := server.New(server.Config{
		Issuer:    "https://auth.example.com",
		Login:     accounts{},
		Resources: []string{notes, calendar},
		Scopes:    []server.Scope{{Name: "calendar:read", Description: "See your calendar"}},
		Clients: []server.Client{{ID: "notes-server", SecretHash: hash,
			GrantTypes: []string{server.GrantTokenExchange}, ExchangeFrom: []string{notes}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(slices.Contains(as.Metadata().GrantTypesSupported, server.GrantTokenExchange))

	x := &server.Exchanger{TokenEndpoint: as.Metadata().TokenEndpoint,
		ClientID: "notes-server", ClientSecret: "the notes server's secret"}
	// In a tool: client.WithAuthorizer(x.For(ctx.Identity(), calendar, "calendar:read")).
	// An identity whose token no verifier kept cannot be exchanged.
	a := x.For(&sake.Identity{Subject: "ada"}, calendar, "calendar:read")
	req, _ := http.NewRequest(http.MethodPost, calendar, nil)
	fmt.Println(errors.Is(a.Authorize(req.Context(), req), server.ErrNoCallerToken))
	// Output:
	// true
	// true
}
