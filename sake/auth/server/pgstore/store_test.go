package pgstore_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/pgstore"
	"github.com/sakemcp/sake-go/sake/auth/server/storetest"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store {
		_, _, pool := pgtest.Schema(t)
		s, err := pgstore.New(context.Background(), pool)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestTwoReplicas shares one database between two stores: a code stored
// by one is consumed once across both.
func TestTwoReplicas(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	ctx := context.Background()
	a, err := pgstore.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pgstore.New(ctx, pgtest.Pool(t, url, schema))
	if err != nil {
		t.Fatal(err)
	}
	storetest.Shared(t, a, b)
}

type noLogin struct{}

func (noLogin) Current(*http.Request) (*server.Authentication, error) { return nil, nil }
func (noLogin) LoginURL(*http.Request, server.LoginRequest) string    { return "/login" }
func (noLogin) Lookup(context.Context, string) (*server.Subject, error) {
	return &server.Subject{Active: true}, nil
}

// TestServerOnPostgres issues, introspects and revokes a token through an
// authorization server whose store is PostgreSQL.
func TestServerOnPostgres(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	store, err := pgstore.New(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	hash, _ := server.HashSecret("machine-secret")
	as, err := server.New(server.Config{Issuer: "http://" + ts.Listener.Addr().String(), Login: noLogin{}, Store: store,
		Resources: []string{"https://mcp.example/mcp"}, Scopes: []server.Scope{{Name: "read"}},
		Clients: []server.Client{{ID: "m", SecretHash: hash, GrantTypes: []string{"client_credentials"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = as.Handler()
	ts.Start()
	defer ts.Close()
	post := func(path string, form url.Values) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/oauth"+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("m", "machine-secret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return m
	}
	tok := post("/token", url.Values{"grant_type": {"client_credentials"}})
	at, _ := tok["access_token"].(string)
	if at == "" {
		t.Fatalf("token: %v", tok)
	}
	if m := post("/introspect", url.Values{"token": {at}}); m["active"] != true {
		t.Fatalf("introspect: %v", m)
	}
	post("/revoke", url.Values{"token": {at}})
	if m := post("/introspect", url.Values{"token": {at}}); m["active"] != false {
		t.Fatalf("introspect after revocation: %v", m)
	}
}
