package upstream

import (
	"strings"

	"golang.org/x/oauth2"
)

// kind says how a provider tells who signed in.
type kind int

const (
	kindOIDC   kind = iota // an ID token, verified against discovery
	kindEntra              // an ID token; tid and oid name the person
	kindGitHub             // OAuth 2 only: the user API
)

// Provider is an upstream identity provider: where people sign in. Make
// one with a preset (OIDC, Google, Entra, Okta, Auth0, Keycloak, GitHub).
type Provider struct {
	// Name is shown on pages ("Google", "Microsoft").
	Name string
	// Issuer is the OpenID issuer, discovered at New; for GitHub, its
	// web origin (subjects are namespaced by it).
	Issuer string
	// Scopes are asked for; Config.Scopes adds to them. For an OpenID
	// provider openid is always asked for, and offline_access when its
	// discovery document lists it.
	Scopes []string
	// AuthParams are added to every authorization request (Google's
	// access_type=offline).
	AuthParams map[string]string

	kind      kind
	endpoint  oauth2.Endpoint // GitHub
	apiURL    string          // GitHub's API
	authority string          // Entra: where its tenants' issuers are
}

// OIDC is any OpenID provider, by its issuer URL (its discovery
// document is at ISSUER/.well-known/openid-configuration). The subject
// is its sub claim.
func OIDC(issuer string) Provider {
	return Provider{Name: hostOf(issuer), Issuer: issuer, Scopes: []string{"openid", "profile", "email"}}
}

// Google is Google accounts (Workspace or not): restrict who may sign in
// with AllowDomains, which at Google also accepts the hd claim (the
// Workspace domain). A refresh token
// is asked for (access_type=offline).
func Google() Provider {
	p := OIDC(googleIssuer)
	p.Name = "Google"
	p.AuthParams = map[string]string{"access_type": "offline"}
	return p
}

// Entra is Microsoft Entra ID for tenant: a tenant id or domain for one
// organisation, or "organizations" (any work account) or "common" (any
// account, also personal ones) for a multi-tenant application, where
// each ID token's issuer is checked against its own tid claim. The
// subject is the oid claim under the tenant's issuer (sub differs per
// application); Person.Tenant is tid, for AllowTenants.
func Entra(tenant string) Provider {
	if tenant == "" {
		tenant = "organizations"
	}
	return entraAt(entraAuthority, tenant)
}

// entraAuthority is where Entra ID is.
const entraAuthority = "https://login.microsoftonline.com/"

// entraAt is Entra under authority (a stand-in in tests).
func entraAt(authority, tenant string) Provider {
	return Provider{Name: "Microsoft", Issuer: authority + tenant + "/v2.0",
		Scopes: []string{"openid", "profile", "email", "offline_access"}, kind: kindEntra, authority: authority}
}

// Okta is an Okta authorization server: a domain (dev-123.okta.com,
// whose org authorization server is used) or the issuer URL of a custom
// authorization server (https://dev-123.okta.com/oauth2/default).
func Okta(domainOrIssuer string) Provider {
	p := OIDC(httpsURL(domainOrIssuer))
	p.Name = "Okta"
	p.Scopes = append(p.Scopes, "offline_access")
	return p
}

// Auth0 is an Auth0 tenant by its domain (example.eu.auth0.com, or a
// custom domain). Its org_id claim fills Person.Organizations.
func Auth0(domain string) Provider {
	p := OIDC(strings.TrimSuffix(httpsURL(domain), "/") + "/")
	p.Name = "Auth0"
	p.Scopes = append(p.Scopes, "offline_access")
	return p
}

// Keycloak is a Keycloak realm: baseURL is where Keycloak is served
// (https://id.example.com, or with /auth for old versions).
func Keycloak(baseURL, realm string) Provider {
	p := OIDC(strings.TrimSuffix(baseURL, "/") + "/realms/" + realm)
	p.Name = "Keycloak"
	return p
}

// GitHub is github.com: OAuth 2 without OpenID Connect, so the person
// is read from its user API (the subject is the numeric user id, the
// email a verified one). GitHub says neither how nor when the person
// authenticated: acr_values cannot be met, and each pass through GitHub
// counts as a sign-in at that moment. Add the read:org scope to
// Config.Scopes to fill Person.Organizations (for AllowOrganizations).
func GitHub() Provider {
	return GitHubAt("https://github.com", "https://api.github.com")
}

// GitHubAt is GitHub Enterprise Server (or a stand-in in tests): its web
// origin and its API base URL (https://HOST/api/v3).
func GitHubAt(webURL, apiURL string) Provider {
	web := strings.TrimSuffix(webURL, "/")
	return Provider{Name: "GitHub", Issuer: web, Scopes: []string{"read:user", "user:email"}, kind: kindGitHub,
		endpoint: oauth2.Endpoint{AuthURL: web + "/login/oauth/authorize", TokenURL: web + "/login/oauth/access_token",
			AuthStyle: oauth2.AuthStyleInParams},
		apiURL: strings.TrimSuffix(apiURL, "/")}
}

func httpsURL(s string) string {
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		return s
	}
	return "https://" + s
}

func hostOf(u string) string {
	h := strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	if i := strings.IndexByte(h, '/'); i >= 0 {
		h = h[:i]
	}
	return h
}
