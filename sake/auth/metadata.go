package auth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// WellKnownPrefix is the well-known path of protected resource metadata
// (RFC 9728 §3).
const WellKnownPrefix = "/.well-known/oauth-protected-resource"

// ResourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728 §2) describing an MCP endpoint. Resource must be the endpoint's
// canonical URL, identical to the one clients derive the well-known URL from
// and to the audience tokens are issued for.
type ResourceMetadata struct {
	// Resource is the endpoint's canonical URL. Required.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuers clients may obtain tokens
	// from; MCP requires at least one.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported should be the minimal set for basic use; further
	// scopes are requested through challenges.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported defaults to ["header"].
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is the URL of developer documentation.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// DPoPSigningAlgValuesSupported lists the DPoP proof algorithms
	// accepted (see DPoPAlgorithms).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// DPoPBoundAccessTokensRequired says that only DPoP-bound tokens are
	// accepted.
	DPoPBoundAccessTokensRequired bool `json:"dpop_bound_access_tokens_required,omitempty"`
}

// Handler serves the metadata as JSON to GET and HEAD (405 otherwise), with
// Cache-Control: max-age=3600 and Access-Control-Allow-Origin: * so that
// browser-based clients can read it. The document is rendered when Handler
// is called; later changes to m are not served. Handler panics when Resource
// is empty, a wiring mistake.
func (m *ResourceMetadata) Handler() http.Handler {
	if m.Resource == "" {
		panic("auth: ResourceMetadata.Resource is required")
	}
	doc := *m
	if len(doc.BearerMethodsSupported) == 0 {
		doc.BearerMethodsSupported = []string{"header"}
	}
	body, err := json.Marshal(&doc)
	if err != nil {
		panic("auth: encoding resource metadata: " + err.Error())
	}
	body = append(body, '\n')
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "max-age=3600")
		h.Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}

// WellKnownPath returns the path at which the metadata of resource is
// served: WellKnownPrefix followed by the resource URL's path without a
// trailing slash (RFC 9728 §3.1). For https://x/mcp it is
// /.well-known/oauth-protected-resource/mcp; for https://x it is
// /.well-known/oauth-protected-resource.
func WellKnownPath(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return WellKnownPrefix
	}
	return WellKnownPrefix + strings.TrimRight(u.EscapedPath(), "/")
}

// MetadataURL returns the absolute URL of resource's metadata document, for
// the resource_metadata parameter of challenges: the resource's scheme and
// host followed by WellKnownPath(resource).
func MetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + WellKnownPath(resource)
}
