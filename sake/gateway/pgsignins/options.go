package pgsignins

import "github.com/sakemcp/sake-go/sake/gateway"

// Defaults of the options.
const (
	// DefaultMaxOpen bounds the sign-ins open at once over all users
	// when MaxOpen is not given: gateway.DefaultMaxPendingSignIns.
	DefaultMaxOpen = gateway.DefaultMaxPendingSignIns
	// DefaultMaxPerUser bounds one user's open sign-ins when MaxPerUser
	// is not given: gateway.DefaultMaxSignInsPerUser.
	DefaultMaxPerUser = gateway.DefaultMaxSignInsPerUser
)

// Option configures a Store.
type Option func(*config)

type config struct{ maxOpen, maxPerUser int }

// MaxOpen bounds the sign-ins open at once over all users and replicas
// (default DefaultMaxOpen), and apart from them the ended ones kept for
// their waiters. n <= 0 keeps the default.
func MaxOpen(n int) Option { return func(c *config) { c.maxOpen = n } }

// MaxPerUser bounds one user's open sign-ins (default
// DefaultMaxPerUser). n <= 0 keeps the default.
func MaxPerUser(n int) Option { return func(c *config) { c.maxPerUser = n } }

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.maxOpen <= 0 {
		c.maxOpen = DefaultMaxOpen
	}
	if c.maxPerUser <= 0 {
		c.maxPerUser = DefaultMaxPerUser
	}
	return c
}
