package pgstore_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/auth/server/pgstore"
	"github.com/sakemcp/sake-go/sake/auth/server/storetest"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// newStore returns a store on pool, closed when t ends.
func newStore(t *testing.T, pool *pgxpool.Pool, opts ...pgstore.Option) *pgstore.Store {
	t.Helper()
	s, err := pgstore.New(context.Background(), pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store {
		_, _, pool := pgtest.Schema(t)
		return newStore(t, pool)
	})
}

// TestTwoReplicas shares one database between two stores: a code stored
// by one is consumed once across both.
func TestTwoReplicas(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	a := newStore(t, pool)
	b := newStore(t, pgtest.Pool(t, url, schema))
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
	store := newStore(t, pool)
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

// TestRevocationAcrossReplicas runs two authorization servers on one
// database: what one revokes, the other's verifier refuses at once.
func TestRevocationAcrossReplicas(t *testing.T) {
	url, schema, pool := pgtest.Schema(t)
	a := newStore(t, pool)
	b := newStore(t, pgtest.Pool(t, url, schema))
	storetest.Revocation(t, a, b, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.SyncRevocations(ctx); err != nil {
			t.Fatalf("waiting for the revocation feed: %v", err)
		}
	})
}
