package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// DefaultClockSkew is the leeway applied to exp, nbf and iat when
// JWTConfig.ClockSkew is zero.
const DefaultClockSkew = 30 * time.Second

// minHMACSecret is the shortest HS256 secret accepted: 256 bits.
const minHMACSecret = 32

// JWTConfig configures a JWTVerifier.
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier, which the
	// token's iss must equal. Required.
	Issuer string
	// Audience lists the identifiers of this resource: the endpoint's
	// canonical URL (RFC 8707). At least one must appear in the token's
	// aud, compared exactly. Required.
	Audience []string
	// Keys supplies the public keys (a *JWKS, StaticKeys). It may be nil
	// only when HMACSecret is set.
	Keys KeySource
	// HMACSecret verifies HS256 tokens that this server issues itself
	// (see Issuer); at least 32 bytes. HS256 is accepted when, and only
	// when, it is set, and it is never looked up in Keys.
	HMACSecret []byte
	// Algorithms are the accepted signature algorithms, among RS256,
	// RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA and
	// HS256. The default is RS256, ES256 and EdDSA (only HS256 when Keys
	// is nil); HS256 is added whenever HMACSecret is set.
	Algorithms []string
	// ClockSkew is the leeway for exp, nbf and iat; default
	// DefaultClockSkew.
	ClockSkew time.Duration
	// Principal optionally resolves the host's principal (for example its
	// user record) from a verified identity. Returning an *Error rejects
	// the request with it; any other error is reported as a failure to
	// decide, not as a bad token.
	Principal func(ctx context.Context, id *protocol.Identity) (any, error)
	// RequireDPoP refuses Bearer tokens: only DPoP-bound tokens presented
	// with a valid proof are accepted.
	RequireDPoP bool
	// DPoPWindow is how far a proof's iat may lie from now; default
	// DefaultDPoPWindow.
	DPoPWindow time.Duration
	// Replay remembers DPoP proof ids; default an in-memory cache. Share
	// one between the instances of a replicated server.
	Replay ReplayCache
	// Revoked, when set, is asked about every token that passed all the
	// other checks, with its claims: true refuses the token (401
	// invalid_token), an error is a failure to decide (503, like an
	// unreachable key set). It runs on every request, so it should answer
	// from memory: the verifier of sake/auth/server sets it to that
	// server's revocations.
	Revoked func(ctx context.Context, claims map[string]any) (bool, error)
	// MaxActorDepth bounds the act chain (RFC 8693 §4.1) of a token
	// obtained by token exchange: a deeper or malformed one is refused
	// (invalid_token). Default DefaultMaxActorDepth; see Actors.
	MaxActorDepth int
	// KeepToken keeps each verified token with the identity it
	// established, for TokenOf: a tool can then exchange its caller's
	// token (RFC 8693) to call another service as the caller. Off, a
	// verified token is forgotten at once.
	KeepToken bool
	// Now returns the current time; default time.Now. For tests.
	Now func() time.Time
}

// JWTVerifier verifies JWT access tokens (RFC 9068) locally, by signature,
// and DPoP proofs for tokens bound with cnf.jkt. It is safe for concurrent
// use.
type JWTVerifier struct {
	keys        KeySource
	secret      []byte
	principal   func(ctx context.Context, id *protocol.Identity) (any, error)
	requireDPoP bool
	window      time.Duration
	replay      ReplayCache
	revoked     func(ctx context.Context, claims map[string]any) (bool, error)
	maxActors   int
	keepToken   bool
	now         func() time.Time
	parser      *jwt.Parser
}

var supportedAlgorithms = []string{
	"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "HS256",
}

// NewJWTVerifier checks cfg and returns a verifier. It refuses a
// configuration without issuer or audience, without keys, with an unknown
// algorithm (none included), with HS256 but no HMACSecret, or with a secret
// shorter than 32 bytes.
func NewJWTVerifier(cfg JWTConfig) (*JWTVerifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("auth: JWTConfig.Issuer is required")
	}
	if len(cfg.Audience) == 0 || slices.Contains(cfg.Audience, "") {
		return nil, errors.New("auth: JWTConfig.Audience needs at least one non-empty resource identifier")
	}
	if cfg.Keys == nil && len(cfg.HMACSecret) == 0 {
		return nil, errors.New("auth: JWTConfig needs Keys or HMACSecret")
	}
	if len(cfg.HMACSecret) > 0 && len(cfg.HMACSecret) < minHMACSecret {
		return nil, fmt.Errorf("auth: JWTConfig.HMACSecret must be at least %d bytes", minHMACSecret)
	}
	algs := slices.Clone(cfg.Algorithms)
	if algs == nil && cfg.Keys != nil {
		algs = []string{"RS256", "ES256", "EdDSA"}
	}
	for _, a := range algs {
		switch {
		case !slices.Contains(supportedAlgorithms, a):
			return nil, fmt.Errorf("auth: algorithm %q is not supported", a)
		case a == "HS256" && len(cfg.HMACSecret) == 0:
			return nil, errors.New("auth: HS256 needs JWTConfig.HMACSecret")
		case a != "HS256" && cfg.Keys == nil:
			return nil, fmt.Errorf("auth: algorithm %s needs JWTConfig.Keys", a)
		}
	}
	if len(cfg.HMACSecret) > 0 && !slices.Contains(algs, "HS256") {
		algs = append(algs, "HS256")
	}
	if cfg.ClockSkew < 0 || cfg.DPoPWindow < 0 {
		return nil, errors.New("auth: JWTConfig durations must not be negative")
	}
	if cfg.MaxActorDepth < 0 {
		return nil, errors.New("auth: JWTConfig.MaxActorDepth must not be negative")
	}
	skew := cfg.ClockSkew
	if skew == 0 {
		skew = DefaultClockSkew
	}
	v := &JWTVerifier{
		keys:        cfg.Keys,
		secret:      slices.Clone(cfg.HMACSecret),
		principal:   cfg.Principal,
		requireDPoP: cfg.RequireDPoP,
		window:      cfg.DPoPWindow,
		replay:      cfg.Replay,
		revoked:     cfg.Revoked,
		maxActors:   cfg.MaxActorDepth,
		keepToken:   cfg.KeepToken,
		now:         cfg.Now,
	}
	if v.maxActors == 0 {
		v.maxActors = DefaultMaxActorDepth
	}
	if v.window == 0 {
		v.window = DefaultDPoPWindow
	}
	if v.now == nil {
		v.now = time.Now
	}
	if v.replay == nil {
		v.replay = newReplayCache(v.now, DefaultReplayCacheSize)
	}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(algs),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(slices.Clone(cfg.Audience)...),
		jwt.WithLeeway(skew),
		jwt.WithTimeFunc(v.now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithStrictDecoding(),
	)
	return v, nil
}

// RequiresDPoP reports whether the verifier refuses Bearer tokens, so that
// challenges use the DPoP scheme.
func (v *JWTVerifier) RequiresDPoP() bool { return v.requireDPoP }

// Verify checks the token's signature (with the key its kid names, of the
// type its alg needs), exp (required), nbf, iat, iss and aud, and its DPoP
// binding, then maps its claims to an identity: Subject from sub, ClientID
// from client_id, azp or cid, Scopes from scope or scp, ACR from acr,
// AuthTime from auth_time, and Claims with all the claims. A sub equal to
// the client id is the client acting for itself (client credentials, RFC
// 9068 §2.2): Subject stays empty and the client id is the owner. An act
// claim (token exchange) must be a well-formed chain no deeper than
// MaxActorDepth (see Actors). Last, JWTConfig.Revoked is asked, when set.
//
// A token bound with cnf.jkt is accepted only under the DPoP scheme with a
// valid proof for the request whose key thumbprint equals jkt; the DPoP
// scheme with an unbound token is refused, and so is Bearer when RequireDPoP
// is set.
func (v *JWTVerifier) Verify(ctx context.Context, r *TokenRequest) (*protocol.Identity, error) {
	if r == nil || r.Token == "" {
		e := MissingToken(nil)
		e.DPoP = v.requireDPoP
		return nil, e
	}
	scheme := SchemeBearer
	if r.Scheme != "" {
		s, ok := canonicalScheme(r.Scheme)
		if !ok {
			return nil, InvalidRequest(fmt.Errorf("unsupported scheme %q", r.Scheme))
		}
		scheme = s
	}
	if scheme == SchemeBearer && v.requireDPoP {
		e := InvalidToken(errors.New("bearer token where DPoP is required"))
		e.DPoP = true
		return nil, e
	}

	var unavailable error
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(r.Token, claims, func(t *jwt.Token) (any, error) {
		if !acceptedType(t.Header["typ"]) {
			return nil, fmt.Errorf("typ %v is not an access token's", t.Header["typ"])
		}
		alg := t.Method.Alg()
		if alg == "HS256" {
			// Only reachable with a secret: HS256 is in the valid
			// methods only then. Keys is never consulted for it.
			return v.secret, nil
		}
		if v.keys == nil {
			return nil, ErrKeyNotFound
		}
		kid, _ := t.Header["kid"].(string)
		key, err := v.keys.Key(ctx, kid, alg)
		if err != nil {
			if !errors.Is(err, ErrKeyNotFound) {
				unavailable = err
			}
			return nil, err
		}
		if err := checkKey(alg, key); err != nil {
			return nil, err
		}
		return key, nil
	})
	if unavailable != nil {
		return nil, fmt.Errorf("auth: cannot verify token: %w", unavailable)
	}
	if err != nil {
		return nil, InvalidToken(err)
	}
	if err := checkBinding(r, scheme, confirmationJKT(claims), v.now(), v.window, v.replay); err != nil {
		return nil, err
	}
	if err := checkActors(claims, v.maxActors); err != nil {
		return nil, err
	}
	id, err := identityFromClaims(claims)
	if err != nil {
		return nil, err
	}
	if v.revoked != nil {
		revoked, err := v.revoked(ctx, claims)
		if err != nil {
			return nil, fmt.Errorf("auth: cannot tell whether the token was revoked: %w", err)
		}
		if revoked {
			return nil, InvalidToken(errors.New("the token was revoked"))
		}
	}
	if id, err = resolvePrincipal(ctx, v.principal, id); err != nil {
		return nil, err
	}
	if v.keepToken {
		keepToken(id, r.Token)
	}
	return id, nil
}

// acceptedType reports whether a JWT's typ header names an access token:
// "at+jwt" or "application/at+jwt" (RFC 9068 §2.1), "JWT", or no typ at
// all, for issuers that predate RFC 9068. Any other type (a DPoP proof's
// "dpop+jwt", a security event's "secevent+jwt", an ID token's
// "id_token+jwt") is a different kind of token that may carry our audience
// and is refused.
func acceptedType(typ any) bool {
	if typ == nil {
		return true
	}
	s, ok := typ.(string)
	if !ok {
		return false
	}
	s = strings.TrimPrefix(strings.ToLower(s), "application/")
	return s == "at+jwt" || s == "jwt"
}

// checkBinding enforces the token's sender constraint: a token with cnf.jkt
// needs the DPoP scheme and a valid proof by the key it names; the DPoP
// scheme needs a bound token.
func checkBinding(r *TokenRequest, scheme, jkt string, now time.Time, window time.Duration, replay ReplayCache) error {
	if jkt == "" {
		if scheme == SchemeDPoP {
			e := InvalidToken(errors.New("DPoP scheme with a token that is not DPoP-bound"))
			e.DPoP = true
			return e
		}
		return nil
	}
	if scheme != SchemeDPoP {
		e := InvalidToken(errors.New("DPoP-bound token presented as a bearer token"))
		e.DPoP = true
		return e
	}
	got, err := VerifyDPoPProof(r.DPoPProof, r.Method, r.URL, r.Token, now, window, replay)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(jkt)) != 1 {
		e := InvalidToken(errors.New("DPoP proof key does not match cnf.jkt"))
		e.DPoP = true
		return e
	}
	return nil
}

// resolvePrincipal runs the host's Principal hook, if any.
func resolvePrincipal(ctx context.Context, f func(context.Context, *protocol.Identity) (any, error),
	id *protocol.Identity) (*protocol.Identity, error) {
	if f == nil {
		return id, nil
	}
	p, err := f(ctx, id)
	if err != nil {
		if AsError(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("auth: resolving principal: %w", err)
	}
	id.Principal = p
	return id, nil
}
