package auth

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestResourceMetadataHandler(t *testing.T) {
	t.Parallel()
	m := &ResourceMetadata{
		Resource:                      "https://x/mcp",
		AuthorizationServers:          []string{"https://auth.example.com"},
		ScopesSupported:               []string{"notes:read"},
		ResourceName:                  "Notes",
		DPoPSigningAlgValuesSupported: DPoPAlgorithms(),
	}
	h := m.Handler()
	m.ResourceName = "changed later" // not served

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	const want = `{"resource":"https://x/mcp","authorization_servers":["https://auth.example.com"],` +
		`"scopes_supported":["notes:read"],"bearer_methods_supported":["header"],"resource_name":"Notes",` +
		`"dpop_signing_alg_values_supported":["ES256","RS256","EdDSA"]}` + "\n"
	if rec.Code != http.StatusOK || rec.Body.String() != want {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	for k, v := range map[string]string{
		"Content-Type":                "application/json",
		"Cache-Control":               "max-age=3600",
		"Access-Control-Allow-Origin": "*",
	} {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/", nil))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != strconv.Itoa(len(want)) {
		t.Fatalf("HEAD: %d %q", rec.Code, rec.Body)
	}

	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, "/", nil))
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
			t.Fatalf("%s: %d allow=%q", method, rec.Code, rec.Header().Get("Allow"))
		}
	}
}

func TestResourceMetadataDPoPRequired(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer((&ResourceMetadata{Resource: "https://x", BearerMethodsSupported: []string{"header", "body"},
		DPoPBoundAccessTokensRequired: true}).Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	const want = `{"resource":"https://x","bearer_methods_supported":["header","body"],"dpop_bound_access_tokens_required":true}` + "\n"
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
}

func TestResourceMetadataRequiresResource(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic without Resource")
		}
	}()
	(&ResourceMetadata{}).Handler()
}

func TestWellKnownPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ resource, path, url string }{
		{"https://x/mcp", "/.well-known/oauth-protected-resource/mcp", "https://x/.well-known/oauth-protected-resource/mcp"},
		{"https://example.com/public/mcp", "/.well-known/oauth-protected-resource/public/mcp",
			"https://example.com/.well-known/oauth-protected-resource/public/mcp"},
		{"https://x/mcp/", "/.well-known/oauth-protected-resource/mcp", "https://x/.well-known/oauth-protected-resource/mcp"},
		{"https://x", "/.well-known/oauth-protected-resource", "https://x/.well-known/oauth-protected-resource"},
		{"https://x/", "/.well-known/oauth-protected-resource", "https://x/.well-known/oauth-protected-resource"},
		{"https://mcp.example.com:8443", "/.well-known/oauth-protected-resource",
			"https://mcp.example.com:8443/.well-known/oauth-protected-resource"},
	} {
		if got := WellKnownPath(tc.resource); got != tc.path {
			t.Errorf("WellKnownPath(%q) = %q, want %q", tc.resource, got, tc.path)
		}
		if got := MetadataURL(tc.resource); got != tc.url {
			t.Errorf("MetadataURL(%q) = %q, want %q", tc.resource, got, tc.url)
		}
	}
}
