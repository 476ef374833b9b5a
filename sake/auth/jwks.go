package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JWKS defaults.
const (
	// DefaultJWKSMinRefresh is the least time between two fetches of a key
	// set, however many unknown kids arrive.
	DefaultJWKSMinRefresh = time.Minute
	// DefaultJWKSTTL is how long a key set is cached when the response
	// has no Cache-Control max-age.
	DefaultJWKSTTL = time.Hour
	// MaxJWKSTTL caps the cache lifetime a response's max-age can ask for.
	MaxJWKSTTL = 24 * time.Hour
	// DefaultJWKSMaxWait bounds how long a token check waits for a fetch
	// of the key set before it gives up with an *UnavailableError.
	DefaultJWKSMaxWait = 5 * time.Second
	// DefaultJWKSRetry is the least time between two fetches after one
	// failed (at most the minimum refresh interval): the answer while the
	// set is unreachable is 503 with Retry-After, and recovery is noticed
	// that soon.
	DefaultJWKSRetry = 5 * time.Second

	maxJWKSBody  = 1 << 20
	fetchTimeout = 30 * time.Second
)

// JWKS is a KeySource backed by a JSON Web Key Set fetched from a URL (the
// authorization server's jwks_uri). The set is fetched on first use and
// cached for the response's Cache-Control max-age (DefaultJWKSTTL when
// absent, at most MaxJWKSTTL, at least MinRefresh). An unknown kid refetches
// the set, at most once per MinRefresh, so tokens with invented kids cannot
// make the server hammer the authorization server; concurrent lookups share
// one fetch. A stale set keeps answering while its refresh runs in the
// background, and when a refresh fails the previous keys stay in use.
//
// A lookup waits for a fetch at most MaxWait (DefaultJWKSMaxWait). When it
// has no key to answer with because the set cannot be fetched (the fetch
// failed, or is still running after MaxWait), it returns an
// *UnavailableError saying when to try again: plug.Authorization answers
// that with 503 and Retry-After, never with a 401 that would send the
// client to sign in again. After a failed fetch the next one is allowed
// after DefaultJWKSRetry (at most MinRefresh).
//
// RSA, EC (P-256, P-384, P-521) and OKP (Ed25519) keys are used; keys with
// another kty or curve, with use other than "sig", or malformed ones are
// skipped. A key with an alg member is used only for that algorithm.
type JWKS struct {
	url        string
	client     *http.Client
	minRefresh time.Duration
	defaultTTL time.Duration
	maxWait    time.Duration
	now        func() time.Time

	mu          sync.Mutex
	keys        []jwksKey
	loaded      bool      // a fetch has succeeded
	expires     time.Time // when the loaded set goes stale
	lastAttempt time.Time // start of the last fetch, successful or not
	nextAttempt time.Time // no fetch before then
	lastErr     error
	inflight    *jwksFetch
}

type jwksKey struct {
	kid, alg string
	key      any
}

type jwksFetch struct {
	done chan struct{}
}

// JWKSOption configures a JWKS.
type JWKSOption func(*JWKS)

// MaxWait sets how long a lookup waits for a fetch of the set before
// it returns an *UnavailableError (default DefaultJWKSMaxWait).
func MaxWait(d time.Duration) JWKSOption {
	return func(j *JWKS) {
		if d > 0 {
			j.maxWait = d
		}
	}
}

// NewJWKS returns a key source for the key set at url, fetched with client
// (a client with a 30-second timeout when nil).
func NewJWKS(url string, client *http.Client, opts ...JWKSOption) *JWKS {
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	j := &JWKS{url: url, client: client, minRefresh: DefaultJWKSMinRefresh,
		defaultTTL: DefaultJWKSTTL, maxWait: DefaultJWKSMaxWait, now: time.Now}
	for _, o := range opts {
		o(j)
	}
	return j
}

// Key returns the key for kid that suits alg. With an empty kid, the only
// key of the set that suits alg is used. An unknown kid gives an error
// wrapping ErrKeyNotFound; a set that cannot be fetched right now gives an
// *UnavailableError wrapping the fetch error.
func (j *JWKS) Key(ctx context.Context, kid, alg string) (any, error) {
	waited := false
	for {
		j.mu.Lock()
		now := j.now()
		key, lookupErr := j.lookup(kid, alg)
		stale := !j.loaded || !now.Before(j.expires)
		call := j.inflight
		if call == nil && (stale || lookupErr != nil) && !waited && !now.Before(j.nextAttempt) {
			call = &jwksFetch{done: make(chan struct{})}
			j.inflight = call
			j.lastAttempt = now
			j.nextAttempt = now.Add(j.minRefresh)
			go j.fetch(context.WithoutCancel(ctx), call)
		}
		if lookupErr == nil {
			// A known key answers at once, even from a stale set whose
			// refresh is under way.
			j.mu.Unlock()
			return key, nil
		}
		if call == nil || waited {
			// No fetch allowed now: an unknown kid in a set we have, or
			// no set at all.
			loaded, lastErr := j.loaded, j.lastErr
			after := j.nextAttempt.Sub(now)
			j.mu.Unlock()
			if !loaded && lastErr != nil {
				return nil, &UnavailableError{After: after, Err: lastErr}
			}
			return nil, lookupErr
		}
		j.mu.Unlock()
		t := time.NewTimer(j.maxWait)
		select {
		case <-call.done:
			t.Stop()
		case <-t.C:
			return nil, &UnavailableError{After: j.retryDelay(), Err: fmt.Errorf("auth: fetching JWKS %s: no answer within %v", j.url, j.maxWait)}
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		waited = true
	}
}

// retryDelay is how long a failed fetch holds off the next one.
func (j *JWKS) retryDelay() time.Duration { return min(DefaultJWKSRetry, j.minRefresh) }

// UnavailableError says a token cannot be checked right now because what
// checking it needs (a key set, an introspection endpoint) is unreachable.
// It is not the token's fault: HTTP transports answer 503 with Retry-After,
// not 401.
type UnavailableError struct {
	// After is when to try again; zero when unknown.
	After time.Duration
	// Err is the cause, for logs only.
	Err error
}

// Error describes the outage, with its cause.
func (e *UnavailableError) Error() string {
	return "auth: the token cannot be checked right now: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// RetryAfter returns when to try again, at least a second.
func (e *UnavailableError) RetryAfter() time.Duration { return max(e.After, time.Second) }

// lookup finds the key for kid and alg in the cached set. j.mu is held.
func (j *JWKS) lookup(kid, alg string) (any, error) {
	var found any
	n := 0
	for _, k := range j.keys {
		if kid != "" && k.kid != kid {
			continue
		}
		if k.alg != "" && k.alg != alg {
			continue
		}
		if checkKey(alg, k.key) != nil {
			continue
		}
		if kid != "" {
			return k.key, nil
		}
		found = k.key
		n++
	}
	if n == 1 {
		return found, nil
	}
	if kid == "" && n > 1 {
		return nil, fmt.Errorf("%w: no kid and %d keys suit %s", ErrKeyNotFound, n, alg)
	}
	return nil, fmt.Errorf("%w: kid %q for %s", ErrKeyNotFound, kid, alg)
}

// fetch downloads the set and publishes the result.
func (j *JWKS) fetch(ctx context.Context, call *jwksFetch) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	keys, ttl, err := j.download(ctx)
	j.mu.Lock()
	if err != nil {
		j.lastErr = fmt.Errorf("auth: fetching JWKS %s: %w", j.url, err)
		j.nextAttempt = j.lastAttempt.Add(j.retryDelay())
	} else {
		j.keys, j.loaded, j.lastErr = keys, true, nil
		j.expires = j.now().Add(ttl)
	}
	j.inflight = nil
	j.mu.Unlock()
	close(call.done)
}

func (j *JWKS) download(ctx context.Context) ([]jwksKey, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJWKSBody))
		return nil, 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBody+1))
	if err != nil {
		return nil, 0, err
	}
	if len(body) > maxJWKSBody {
		return nil, 0, errors.New("key set too large")
	}
	keys, err := parseJWKS(body)
	if err != nil {
		return nil, 0, err
	}
	return keys, j.ttl(resp.Header.Get("Cache-Control")), nil
}

// ttl reads max-age from a Cache-Control header, within
// [minRefresh, MaxJWKSTTL]. no-store and no-cache mean minRefresh.
func (j *JWKS) ttl(cacheControl string) time.Duration {
	ttl := j.defaultTTL
	for _, d := range strings.Split(cacheControl, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "max-age":
			if secs, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64); err == nil && secs >= 0 {
				if secs > int64(MaxJWKSTTL/time.Second) {
					secs = int64(MaxJWKSTTL / time.Second)
				}
				ttl = time.Duration(secs) * time.Second
			}
		case "no-store", "no-cache":
			ttl = 0
		}
	}
	return min(max(ttl, j.minRefresh), MaxJWKSTTL)
}

// parseJWKS decodes a key set, keeping the usable signature keys.
func parseJWKS(body []byte) ([]jwksKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, err
	}
	if set.Keys == nil {
		return nil, errors.New(`no "keys" member`)
	}
	keys := make([]jwksKey, 0, len(set.Keys))
	for _, raw := range set.Keys {
		var k jwk
		if json.Unmarshal(raw, &k) != nil || k.Use != "" && k.Use != "sig" || k.hasPrivate() {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			continue
		}
		keys = append(keys, jwksKey{kid: k.Kid, alg: k.Alg, key: pub})
	}
	return keys, nil
}
