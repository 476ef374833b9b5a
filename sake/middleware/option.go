package middleware

import (
	"log/slog"
	"time"
)

// Option configures a middleware of this package. Each constructor reads
// the options that concern it and ignores the others.
type Option func(*config)

type config struct {
	now      func() time.Time
	clockSet bool // Clock was given
	logger   *slog.Logger
	store    BucketStore
	maxKeys  int
	failOpen bool

	checkTimeout time.Duration
}

func newConfig(opts []Option) config {
	c := config{now: time.Now, logger: slog.Default()}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Clock sets the source of the current time (default time.Now), for tests
// that move time on without waiting.
func Clock(now func() time.Time) Option {
	return func(c *config) { c.now, c.clockSet = now, true }
}

// Logger sets where the middleware logs what goes wrong (default
// slog.Default()).
func Logger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Store sets where a RateLimiter keeps its buckets (default a
// MemoryBuckets of MaxKeys buckets, private to the limiter).
func Store(s BucketStore) Option { return func(c *config) { c.store = s } }

// MaxKeys bounds the buckets of the default in-memory store (default
// DefaultMaxKeys, 100000). At the bound the least recently used bucket is
// dropped.
func MaxKeys(n int) Option { return func(c *config) { c.maxKeys = n } }

// FailOpen lets requests through when the bucket store fails (a database
// that cannot be reached). By default a RateLimiter fails closed: such
// requests are refused with sake.CodeServerBusy (HTTP 503, Retry-After 1
// second). Either way the first failure is logged, and the next one
// after the store recovers.
func FailOpen() Option { return func(c *config) { c.failOpen = true } }
