package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// asServer serves metadata documents at the given paths; issuer is filled in
// with the server's URL plus issuerPath.
func asServer(t *testing.T, issuerPath string, docs map[string]map[string]any) (srv *httptest.Server, issuer string, paths func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		out := map[string]any{}
		for k, v := range doc {
			out[k] = v
		}
		if out["issuer"] == nil {
			out["issuer"] = "http://" + r.Host + issuerPath
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, srv.URL + issuerPath, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

func TestDiscoverRFC8414(t *testing.T) {
	t.Parallel()
	srv, issuer, seen := asServer(t, "", map[string]map[string]any{
		"/.well-known/oauth-authorization-server": {
			"jwks_uri": "https://as/jwks", "introspection_endpoint": "https://as/introspect",
			"authorization_endpoint": "https://as/authorize", "token_endpoint": "https://as/token",
			"scopes_supported": []string{"a", "b"}, "code_challenge_methods_supported": []string{"S256"},
		},
	})
	md, err := Discover(context.Background(), issuer, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if md.Issuer != issuer || md.JWKSURI != "https://as/jwks" || md.IntrospectionEndpoint != "https://as/introspect" ||
		md.AuthorizationEndpoint != "https://as/authorize" || md.TokenEndpoint != "https://as/token" ||
		!slices.Equal(md.ScopesSupported, []string{"a", "b"}) || md.Raw["code_challenge_methods_supported"] == nil {
		t.Fatalf("%+v", md)
	}
	if !slices.Equal(seen(), []string{"/.well-known/oauth-authorization-server"}) {
		t.Fatalf("requests %v", seen())
	}
}

func TestDiscoverOIDCFallbackWithPath(t *testing.T) {
	t.Parallel()
	srv, issuer, seen := asServer(t, "/tenant1", map[string]map[string]any{
		"/tenant1/.well-known/openid-configuration": {"jwks_uri": "https://as/t1/jwks"},
	})
	md, err := Discover(context.Background(), issuer, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if md.JWKSURI != "https://as/t1/jwks" {
		t.Fatalf("%+v", md)
	}
	want := []string{
		"/.well-known/oauth-authorization-server/tenant1",
		"/.well-known/openid-configuration/tenant1",
		"/tenant1/.well-known/openid-configuration",
	}
	if !slices.Equal(seen(), want) {
		t.Fatalf("requests %v, want %v", seen(), want)
	}
}

func TestDiscoverOIDCRoot(t *testing.T) {
	t.Parallel()
	srv, issuer, _ := asServer(t, "", map[string]map[string]any{
		"/.well-known/openid-configuration": {"jwks_uri": "https://as/jwks"},
	})
	md, err := Discover(context.Background(), issuer, srv.Client())
	if err != nil || md.JWKSURI != "https://as/jwks" {
		t.Fatalf("%+v %v", md, err)
	}
}

func TestDiscoverRefusesIssuerMismatch(t *testing.T) {
	t.Parallel()
	srv, issuer, _ := asServer(t, "", map[string]map[string]any{
		"/.well-known/oauth-authorization-server": {"issuer": "https://evil.example.com", "jwks_uri": "https://evil/jwks"},
		"/.well-known/openid-configuration":       {"issuer": "https://evil.example.com", "jwks_uri": "https://evil/jwks"},
	})
	if md, err := Discover(context.Background(), issuer, srv.Client()); err == nil {
		t.Fatalf("accepted %+v", md)
	}
	if _, err := Discover(context.Background(), "not a url", srv.Client()); err == nil {
		t.Fatal("accepted a bad issuer")
	}
}
