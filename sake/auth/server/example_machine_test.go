package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// Machine clients registered dynamically: off by default; with
// DynamicClientCredentials on, Registration decides who may register one
// (here, a caller presenting the operator's registration key).
func ExampleConfig_dynamicClientCredentials() {
	as, err := server.New(server.Config{
		Issuer:                   "https://notes.example.com",
		Login:                    accounts{},
		Resources:                []string{"https://notes.example.com/mcp"},
		DynamicClientCredentials: true,
		Registration: func(_ context.Context, r *http.Request, c *server.Client) error {
			for _, g := range c.GrantTypes {
				if g == "client_credentials" && r.Header.Get("Authorization") != "Bearer operator-key" {
					return errors.New("machine clients are registered by the operator")
				}
			}
			return nil
		},
	})
	if err != nil {
		panic(err)
	}
	r := chi.NewRouter()
	as.Mount(r)
	register := func(key string) int {
		req := httptest.NewRequest(http.MethodPost, "https://notes.example.com/oauth/register",
			strings.NewReader(`{"grant_types":["client_credentials"]}`))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		return rec.Code
	}
	fmt.Println("anyone:", register(""))
	fmt.Println("the operator:", register("operator-key"))
	// Output:
	// anyone: 400
	// the operator: 201
}
