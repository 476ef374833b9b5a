package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

const (
	maxIntrospectionBody = 1 << 20
	maxIntrospectionKeep = 10_000
)

// Introspector verifies opaque access tokens by asking the authorization
// server (RFC 7662 token introspection). It implements Verifier; set its
// fields before first use and do not copy it afterwards. The token goes to
// the endpoint only, never anywhere else, and is cached only as a hash.
type Introspector struct {
	// Endpoint is the introspection endpoint URL (see Discover).
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint with HTTP Basic (RFC 6749 §2.3.1); empty ClientID sends
	// no credentials.
	ClientID, ClientSecret string
	// Audience lists this resource's identifiers. When the response has
	// aud, one of them must appear in it.
	Audience []string
	// Issuer, when set, must equal the response's iss if it has one.
	Issuer string
	// Client makes the requests; a client with a 30-second timeout when
	// nil.
	Client *http.Client
	// CacheTTL is how long an active response is reused, capped by the
	// token's exp; zero disables caching. Inactive responses are never
	// cached.
	CacheTTL time.Duration
	// Principal optionally resolves the host's principal, as in
	// JWTConfig.
	Principal func(ctx context.Context, id *protocol.Identity) (any, error)
	// DPoPWindow and Replay govern proofs for DPoP-bound tokens (cnf.jkt
	// in the response), as in JWTConfig.
	DPoPWindow time.Duration
	Replay     ReplayCache
	// MaxActorDepth and KeepToken are as in JWTConfig (default
	// DefaultMaxActorDepth, and off).
	MaxActorDepth int
	KeepToken     bool
	// Now returns the current time; default time.Now. For tests.
	Now func() time.Time

	mu     sync.Mutex
	cache  map[[sha256.Size]byte]introspected
	replay ReplayCache
}

type introspected struct {
	claims map[string]any
	until  time.Time
}

// Verify introspects the token (or reuses a cached active response) and
// requires active to be true, exp and nbf (when present) to hold within
// DefaultClockSkew, aud (when present) to name this resource, iss (when
// present and Issuer is set) to match, and the DPoP binding, as JWTVerifier
// does, to hold. The identity is built from the response members as from JWT
// claims. An unreachable endpoint or an unexpected answer is returned as a
// plain error, not as an invalid token.
func (in *Introspector) Verify(ctx context.Context, r *TokenRequest) (*protocol.Identity, error) {
	if r == nil || r.Token == "" {
		return nil, MissingToken(nil)
	}
	scheme := SchemeBearer
	if r.Scheme != "" {
		s, ok := canonicalScheme(r.Scheme)
		if !ok {
			return nil, InvalidRequest(fmt.Errorf("unsupported scheme %q", r.Scheme))
		}
		scheme = s
	}
	now := in.now()
	key := sha256.Sum256([]byte(r.Token))
	claims, ok := in.lookup(key, now)
	if !ok {
		var err error
		if claims, err = in.introspect(ctx, r.Token); err != nil {
			return nil, err
		}
		exp, err := in.check(claims, now)
		if err != nil {
			return nil, err
		}
		in.store(key, claims, now, exp)
	}
	if err := checkBinding(r, scheme, confirmationJKT(claims), now, in.DPoPWindow, in.replayCache()); err != nil {
		return nil, err
	}
	depth := in.MaxActorDepth
	if depth <= 0 {
		depth = DefaultMaxActorDepth
	}
	if err := checkActors(claims, depth); err != nil {
		return nil, err
	}
	id, err := identityFromClaims(maps.Clone(claims))
	if err != nil {
		return nil, err
	}
	if id, err = resolvePrincipal(ctx, in.Principal, id); err != nil {
		return nil, err
	}
	if in.KeepToken {
		keepToken(id, r.Token)
	}
	return id, nil
}

func (in *Introspector) now() time.Time {
	if in.Now != nil {
		return in.Now()
	}
	return time.Now()
}

func (in *Introspector) replayCache() ReplayCache {
	if in.Replay != nil {
		return in.Replay
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.replay == nil {
		in.replay = newReplayCache(in.now, DefaultReplayCacheSize)
	}
	return in.replay
}

// check validates an introspection response and returns its exp (zero when
// absent).
func (in *Introspector) check(claims map[string]any, now time.Time) (time.Time, error) {
	if active, _ := claims["active"].(bool); !active {
		return time.Time{}, InvalidToken(errors.New("introspection: token is not active"))
	}
	exp, hasExp := numericDate(claims["exp"])
	if hasExp && !now.Before(exp.Add(DefaultClockSkew)) {
		return time.Time{}, InvalidToken(errors.New("introspection: token expired"))
	}
	if nbf, ok := numericDate(claims["nbf"]); ok && now.Add(DefaultClockSkew).Before(nbf) {
		return time.Time{}, InvalidToken(errors.New("introspection: token not yet valid"))
	}
	if aud, ok := claims["aud"]; ok && len(in.Audience) > 0 && !containsAny(audienceList(aud), in.Audience) {
		return time.Time{}, InvalidToken(errors.New("introspection: token is for another audience"))
	}
	if iss, ok := claims["iss"].(string); ok && in.Issuer != "" && iss != in.Issuer {
		return time.Time{}, InvalidToken(errors.New("introspection: token from another issuer"))
	}
	return exp, nil
}

func audienceList(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	return scopeList(v)
}

func (in *Introspector) lookup(key [sha256.Size]byte, now time.Time) (map[string]any, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	e, ok := in.cache[key]
	if !ok {
		return nil, false
	}
	if !now.Before(e.until) {
		delete(in.cache, key)
		return nil, false
	}
	return e.claims, true
}

func (in *Introspector) store(key [sha256.Size]byte, claims map[string]any, now, exp time.Time) {
	if in.CacheTTL <= 0 {
		return
	}
	until := now.Add(in.CacheTTL)
	if !exp.IsZero() && exp.Before(until) {
		until = exp
	}
	if !now.Before(until) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cache == nil {
		in.cache = make(map[[sha256.Size]byte]introspected)
	}
	if len(in.cache) >= maxIntrospectionKeep {
		for k, e := range in.cache {
			if !now.Before(e.until) {
				delete(in.cache, k)
			}
		}
		// Still full: drop arbitrary entries; they are only a cache.
		for k := range in.cache {
			if len(in.cache) < maxIntrospectionKeep {
				break
			}
			delete(in.cache, k)
		}
	}
	in.cache[key] = introspected{claims: claims, until: until}
}

// introspect posts the token to the endpoint and decodes the response.
func (in *Introspector) introspect(ctx context.Context, token string) (map[string]any, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if in.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(in.ClientID), url.QueryEscape(in.ClientSecret))
	}
	client := in.Client
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxIntrospectionBody))
		return nil, fmt.Errorf("auth: introspection: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIntrospectionBody+1))
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	if len(body) > maxIntrospectionBody {
		return nil, errors.New("auth: introspection: response too large")
	}
	var claims map[string]any
	if err := json.Unmarshal(body, &claims); err != nil || claims == nil {
		return nil, errors.New("auth: introspection: response is not a JSON object")
	}
	return claims, nil
}
