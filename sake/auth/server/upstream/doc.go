// Package upstream signs people in at the identity provider a team
// already has, for Sake's authorization server: a [Login] (a
// server.Login) backed by an OpenID provider (any issuer, Google,
// Microsoft Entra ID, Okta, Auth0, Keycloak) or GitHub. MCP clients talk
// to Sake's authorization server as always (registration, metadata
// documents, PKCE, resources, consent); when it needs a sign-in, the
// browser goes through the provider.
//
// The sign-in is the authorization code flow with PKCE (S256), a state
// and a nonce kept in a sealed cookie of the browser, the state also
// recorded in the authorization server's Store and consumed once. The
// ID token is verified with go-oidc: signature with an algorithm the
// provider publishes (never none or an HMAC), issuer, audience (and azp
// when there are several), expiry and nonce; an authorization response
// carrying iss (RFC 9207), or from a provider that says it sends one,
// must name the provider. The person's subject is the provider's issuer,
// "#" and its identifier, so two providers never share a subject; acr,
// amr and auth_time come from the ID token, and a step-up asked of Sake
// (acr_values, max_age, prompt=login) is passed on to the provider.
// Config.Allow restricts who may sign in ([AllowDomains],
// [AllowTenants], [AllowOrganizations], or any [Rule]).
//
// The session cookie is sealed (AES-GCM) and names a sign-in kept in the
// Store: signing out (POST BaseURL/logout) forgets it, so the cookie no
// longer works, even replayed. The provider's tokens are sealed too
// before they reach the Store (server.UpstreamTokenStore), bounded per
// subject. When the person authorizes an MCP client, the sign-in's
// tokens move to that authorization: [Login.Token] gives a tool call
// the person's upstream access token (refreshed when expired), and
// revoking the authorization forgets it. The tokens never enter Sake's
// access tokens and are never logged.
//
// Revoking an authorization (the revocation endpoint, a replayed code or
// refresh token, a person no longer active) or signing out also revokes
// its upstream token at the provider ([Login.Revoking], a
// server.GrantRevoker): the refresh token, or the access token without
// one, at the revocation_endpoint of the provider's discovery document
// (RFC 7009), authenticated as at its token endpoint; for GitHub with a
// client secret, through its API deleting an application's token. A
// provider without a revocation endpoint is not asked. It happens in the
// background once Sake's revocation is stored, each within
// Config.RevocationTimeout, at most Config.MaxRevocations at a time
// (beyond, the token is left to expire there); a failure is logged
// (status and error code, never the token) and changes nothing in Sake. Lookup asks the provider whether
// the person still has access (userinfo, a refresh, or GitHub's user
// API), reusing its answer for Config.LookupTTL.
package upstream
