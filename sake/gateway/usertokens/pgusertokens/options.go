package pgusertokens

import "github.com/sakemcp/sake-go/sake/gateway/usertokens"

// Defaults of the options.
const (
	// DefaultMaxPerUser bounds one user's tokens when MaxPerUser is not
	// given: 64, as usertokens.Memory.
	DefaultMaxPerUser = usertokens.DefaultMaxPerUser
	// DefaultMaxSealedBytes bounds one sealed token when MaxSealedBytes
	// is not given: 64 KiB, room for the largest token a vault seals
	// (usertokens.MaxTokenBytes and its sealing).
	DefaultMaxSealedBytes = 64 << 10
)

// Fixed bounds on the names a token is kept under, so that a key fits
// the table's index.
const (
	// MaxUserBytes bounds a user's name (the subject the gateway signed
	// in): 256 bytes.
	MaxUserBytes = 256
	// MaxResourceBytes bounds a resource (the remote's URL): 2 KiB.
	MaxResourceBytes = 2 << 10
)

// Option configures a Store.
type Option func(*config)

type config struct {
	maxPerUser     int
	maxSealedBytes int
}

// MaxPerUser bounds the tokens one user holds (default
// DefaultMaxPerUser). Saving one more deletes, in the same transaction,
// the user's least recently saved token: they sign in to that remote
// again. n <= 0 keeps the default.
func MaxPerUser(n int) Option { return func(c *config) { c.maxPerUser = n } }

// MaxSealedBytes bounds one sealed token (default DefaultMaxSealedBytes).
// A larger one is refused with ErrTooLarge. n <= 0 keeps the default.
func MaxSealedBytes(n int) Option { return func(c *config) { c.maxSealedBytes = n } }

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.maxPerUser <= 0 {
		c.maxPerUser = DefaultMaxPerUser
	}
	if c.maxSealedBytes <= 0 {
		c.maxSealedBytes = DefaultMaxSealedBytes
	}
	return c
}
