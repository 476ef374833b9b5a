package auth

import "time"

// The JWKS options are named like the options of every other package
// (sake.Clock, tasks.Clock): the bare name of what they set.

// MinRefresh sets the least time between fetches of a key set (default
// DefaultJWKSMinRefresh).
func MinRefresh(d time.Duration) JWKSOption {
	return func(j *JWKS) {
		if d > 0 {
			j.minRefresh = d
		}
	}
}

// DefaultTTL sets how long a key set is cached when the response has no
// max-age (default DefaultJWKSTTL).
func DefaultTTL(d time.Duration) JWKSOption {
	return func(j *JWKS) {
		if d > 0 {
			j.defaultTTL = d
		}
	}
}

// Clock sets the key set's time source (default time.Now), for tests.
func Clock(now func() time.Time) JWKSOption {
	return func(j *JWKS) {
		if now != nil {
			j.now = now
		}
	}
}
