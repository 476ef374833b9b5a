// Package server is an OAuth 2.1 authorization server on the
// application's own login: the people who connect an MCP client (Claude,
// an IDE, an agent) sign in with the account they already have, consent
// once, and every tool call then knows who they are.
//
// The application keeps its users, login page and session cookie and
// answers one small interface, [Login]: who is signed in on this request,
// where its login page is, and whether a subject may still get tokens.
// Everything else is here: discovery (RFC 8414 and OpenID discovery), the
// authorization endpoint with PKCE (S256 only), exact redirect URI matching
// (any port for loopback redirects, RFC 8252), clients from Client ID
// Metadata Documents (fetched with SSRF protection), dynamic registration
// (RFC 7591) or pre-registration with hashed secrets, resource indicators
// (RFC 8707) as the audience, a consent page, JWT access tokens (RFC 9068)
// signed with ES256 or EdDSA and a JWKS with key rotation, refresh token
// rotation with family revocation on reuse, revocation (RFC 7009),
// introspection (RFC 7662), DPoP-bound tokens (RFC 9449), step-up with
// acr_values and max_age (RFC 9470), pushed authorization requests
// (RFC 9126), the device authorization grant (RFC 8628), OpenID Connect
// ID tokens and userinfo, and client credentials.
//
// Tokens are ordinary JWTs: the sake/auth verifier accepts them with its
// JWKS key source pointed at the server's jwks_uri, or in process with
// [Server.Verifier].
//
// # Mounting
//
//	as, err := server.New(server.Config{
//		Issuer:    "https://example.com",
//		Login:     myLogin, // implements server.Login
//		Resources: []string{"https://example.com/mcp"},
//		Scopes:    []server.Scope{{Name: "notes:read", Description: "Read your notes"}},
//	})
//	r := chi.NewRouter()
//	as.Mount(r) // /.well-known/... and /oauth/...
//	v, _ := as.Verifier("https://example.com/mcp")
//	r.Handle(auth.WellKnownPath("https://example.com/mcp"), as.ResourceMetadata("https://example.com/mcp", "notes:read").Handler())
//	r.Handle("/mcp", plug.New(srv, plug.Authorization(v, auth.MetadataURL("https://example.com/mcp"))))
//
// # Signing in elsewhere
//
// Without a login of its own, an application signs people in at its
// identity provider with sake/auth/server/upstream (any OpenID provider,
// Google, Entra ID, Okta, Auth0, Keycloak, GitHub), whose Login also keeps
// the person's upstream token for tool calls in the Store
// ([UpstreamTokenStore]). For local development, [NewDevLogin] is a
// one-person login answering only on loopback.
//
// # Storage
//
// A [Store] keeps clients, credentials and consents; [NewMemoryStore] is
// the default and bounds what it keeps. Handles (codes, refresh tokens,
// request and device codes, access token ids) are stored as SHA-256
// hashes and client secrets as PBKDF2 hashes: nothing secret is kept in
// clear. A replicated deployment needs a shared Store, shared
// Config.SigningKeys and a shared Config.Secret.
//
// # Revocation
//
// A replayed authorization code or refresh token revokes every token of
// its authorization, and so does the revocation endpoint for a refresh or
// an access token. The verifier of [Server.Verifier] refuses such an
// access token at once (401 invalid_token), on every replica of a shared
// store: the store is a [RevocationList] that answers from memory
// (NewMemoryStore keeps the revoked access tokens until they expire;
// pgstore hears of them through LISTEN/NOTIFY). A verifier built from
// the jwks_uri in another process knows only signatures: it accepts a
// revoked token until it expires (Config.AccessTokenTTL, 15 minutes by
// default), or use introspection there.
//
// A Login that keeps something for an authorization elsewhere (the
// upstream login keeps the person's token at the identity provider)
// implements [GrantRevoker] to hear of each revoked authorization: before
// the Store forgets what it kept, and once the revocation is stored.
//
// # Token exchange
//
// A tool that calls another resource of this server can act as its
// caller (RFC 8693): a pre-registered confidential client whose
// GrantTypes include [GrantTokenExchange] and whose Client.ExchangeFrom
// names its own resource trades an access token sent to it for one for
// another resource, with a subset of its scopes, the chain of actors in
// the act claim (auth.Actors), no refresh token, and no longer life than
// the token it came from, whose authorization it shares: revoking one
// revokes the other. Config.TokenExchange may refuse an exchange,
// Config.MaxActorDepth bounds chains. [Exchanger] is the calling side: a
// sake/client authorizer for one caller ([Exchanger.For]), fed by
// auth.TokenOf, which [Server.Verifier] keeps for such a resource.
//
// # Limits
//
// Dynamic registration is open to anyone, so it is bounded:
// Config.MaxDynamicClients (DefaultMaxClients, 10000) clients in all,
// and at that bound a registration evicts the oldest client never
// authorized (no code or token issued to it yet), answering 503 only
// when every one was authorized; Config.MaxRegistrationsPerAddress
// (DefaultMaxRegistrationsPerAddress, 100) clients never authorized per
// remote address, an IPv4 address or an IPv6 /64, beyond which the
// address gets 429; and Config.UnusedClientTTL (DefaultUnusedClientTTL,
// 24 hours) for a client never authorized. The address is the host of
// the request's RemoteAddr; behind a reverse proxy set
// Config.RegistrationAddress to read the header the proxy sets.
// A dynamically registered client may not use the client credentials
// grant (no person consents to a machine client's token) unless
// Config.DynamicClientCredentials allows it, with Config.Registration
// deciding each one.
// Bodies are read up to DefaultMaxBody (registrations up to 16 KiB), and
// error descriptions keep to RFC 6749's characters and 300 bytes.
// NewMemoryStore bounds what it keeps (MemoryLimits).
//
// # Errors
//
// Every endpoint answers the RFC error codes. Errors of the authorization
// endpoint go back to the client's redirect URI only once it is verified
// against the client's registration; before that (unknown client,
// unregistered redirect URI, unusable request_uri) the person sees an
// error page: there is no open redirect.
//
// A panic in the application's code (the Login, Config.Registration,
// Config.RegistrationAddress, Config.TokenExchange, Config.Metadata.Allow,
// the Store) does not drop the connection: the request is answered 500, a
// server_error JSON body at the token, registration, revocation,
// introspection, PAR, device authorization and userinfo endpoints and an
// error page in the browser (or server_error at the client's verified
// redirect URI), the panic and its stack are logged to Config.Logger and
// never sent, and what the hook was to decide (a client, a code, tokens,
// a device approval) is not stored. A panic in Login.Lookup does not
// revoke the authorization, as a subject found inactive does, and leaves
// a refresh token being redeemed unspent.
package server
