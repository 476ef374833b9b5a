// Package auth verifies the access tokens an MCP server receives over HTTP,
// making it an OAuth 2.1 resource server as the MCP authorization
// specification requires.
//
// # Model
//
// A client calls the MCP endpoint with "Authorization: Bearer <token>" (or
// "DPoP <token>" plus a DPoP proof header, RFC 9449). A [Verifier] turns
// those credentials, gathered in a [TokenRequest], into a *protocol.Identity:
// subject, client, scopes, authentication context and claims, plus the
// host's own principal if a resolver is configured. Handlers then decide
// per operation whether the identity suffices.
//
// Two verifiers are provided:
//
//   - [JWTVerifier] checks JWT access tokens locally: signature (keys from a
//     [JWKS], [StaticKeys] or, for tokens the server mints itself with an
//     [Issuer], an HMAC secret), exp, nbf, iat, iss, the audience (the
//     endpoint's canonical URL, RFC 8707) and DPoP binding. Algorithm
//     confusion is impossible by construction: each algorithm accepts only
//     its own key type, and HS256 only the configured secret.
//   - [Introspector] asks the authorization server about opaque tokens
//     (RFC 7662) and caches active answers briefly.
//
// [Discover] finds an authorization server's jwks_uri and
// introspection_endpoint from its issuer identifier.
//
// Every rejection is an [*Error]: an HTTP status (400, 401 or 403), an RFC
// 6750 error code, and what the WWW-Authenticate challenge needs (required
// scopes, RFC 9470 acr_values and max_age). [Error.Challenge] renders the
// header value with resource_metadata pointing at the endpoint's Protected
// Resource Metadata (RFC 9728), which [ResourceMetadata.Handler] serves at
// [WellKnownPath]. The reason a token failed stays in the error's cause,
// for logs; clients only ever see the code. Any other error from a verifier
// means it could not decide (keys or introspection unavailable): answer 503
// with Retry-After ([*UnavailableError] says when), as plug.Authorization
// does. A [*JWKS] answers from its cached keys while it refreshes them,
// waits at most DefaultJWKSMaxWait for a fetch, and after a failed fetch
// tries again after DefaultJWKSRetry.
//
// Tokens are never logged, forwarded or stored; the introspection cache
// keeps only their SHA-256. The one exception is opt-in: with
// JWTConfig.KeepToken (or Introspector.KeepToken) a verified token stays
// in memory with its identity, for [TokenOf], so that a tool can exchange
// it (RFC 8693) to call another service as its caller. A token obtained
// that way names the services acting for the person in its act claim:
// [Actors] reads the chain, which verifiers bound (MaxActorDepth,
// [DefaultMaxActorDepth]).
//
// # Wiring
//
// A server whose authorization server publishes a JWKS:
//
//	const resource = "https://mcp.example.com/mcp"
//	md, err := auth.Discover(ctx, "https://auth.example.com", nil)
//	if err != nil { ... }
//	v, err := auth.NewJWTVerifier(auth.JWTConfig{
//		Issuer:   md.Issuer,
//		Audience: []string{resource},
//		Keys:     auth.NewJWKS(md.JWKSURI, nil),
//		Principal: func(ctx context.Context, id *protocol.Identity) (any, error) {
//			return users.Load(ctx, id.Subject)
//		},
//	})
//	if err != nil { ... }
//
//	prm := &auth.ResourceMetadata{
//		Resource:             resource,
//		AuthorizationServers: []string{md.Issuer},
//		ScopesSupported:      []string{"notes:read"},
//	}
//	mux := http.NewServeMux()
//	mux.Handle(auth.WellKnownPath(resource), prm.Handler())
//	protect := auth.Middleware(v, auth.MetadataURL(resource), []string{"notes:read"})
//	mux.Handle("/mcp", protect(mcpHandler))
//
// Inside the handler, [IdentityFrom] returns the caller. The MCP transport
// can also call v.Verify itself with [TokenRequestFrom] and answer failures
// with [Error.Challenge]; per-operation scope checks answer
// [InsufficientScope] (403) with all the scopes the operation needs, and
// step-up authentication answers [InsufficientAuthentication] (401).
//
// A server that mints its own tokens, and tests, use an [Issuer] with the
// same secret as the verifier:
//
//	secret := make([]byte, 32) // from a secret store
//	iss := &auth.Issuer{Issuer: "https://mcp.example.com", Secret: secret, Audience: resource}
//	v, _ := auth.NewJWTVerifier(auth.JWTConfig{
//		Issuer: iss.Issuer, Audience: []string{resource}, HMACSecret: secret,
//	})
//	token, _ := iss.Issue("alice", "test-client", []string{"notes:read"}, "", time.Time{}, "")
package auth
