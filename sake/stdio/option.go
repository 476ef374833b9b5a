package stdio

import (
	"log/slog"
	"os"

	"github.com/sakemcp/sake-go/sake"
)

// Defaults of the options.
const (
	defaultMaxLineBytes  = 4 << 20
	defaultMaxConcurrent = 64
)

// Option configures Serve and ServeStdio.
type Option func(*config)

type config struct {
	maxLine       int
	maxConcurrent int
	identity      *sake.Identity
	logger        *slog.Logger
	// abandonRead lets Serve return without waiting for a Read it cannot
	// interrupt. Only ServeStdio sets it: the process is about to exit, and
	// nothing can interrupt a blocking read of stdin.
	abandonRead bool
}

func newConfig(opts []Option) config {
	c := config{maxLine: defaultMaxLineBytes, maxConcurrent: defaultMaxConcurrent}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	if c.maxLine <= 0 {
		c.maxLine = defaultMaxLineBytes
	}
	if c.maxConcurrent <= 0 {
		c.maxConcurrent = defaultMaxConcurrent
	}
	if c.logger == nil {
		c.logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return c
}

// MaxLineBytes sets the longest message accepted, in bytes, not counting
// the line's terminator. A longer line is discarded as it is read, without
// being held in memory, and answered with a JSON-RPC error -32600 whose id
// is null; the lines after it are served as usual. The default is 4 MiB;
// n <= 0 keeps it.
func MaxLineBytes(n int) Option { return func(c *config) { c.maxLine = n } }

// Identity sets the caller the host vouches for, passed with every
// message as the caller's identity (transport.Connect). Over stdio there
// is no token to verify: whoever started the process is the caller. The
// default is nil, an anonymous caller.
func Identity(id *sake.Identity) Option { return func(c *config) { c.identity = id } }

// Logger sets where the transport logs what goes wrong on the connection
// (over-long lines, failed reads and writes). It must not write to the
// output the protocol uses. The default is a text handler on os.Stderr.
func Logger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// MaxConcurrent sets how many requests are handled at once. When that
// many are running, further requests wait in a queue while Serve goes on
// reading, so notifications such as a cancellation, and the client's
// answers to the server's questions, are still handled; the server caps
// the requests in flight (sake.Limits.MaxInFlight) and refuses the rest. A
// call a proxy forwards to a stdio command without waiting for it (see
// transport.ReplyDeferrer) holds no slot once forwarded; MaxInFlight
// still counts it until it is answered. The default is 64; n <= 0 keeps
// it.
func MaxConcurrent(n int) Option { return func(c *config) { c.maxConcurrent = n } }
