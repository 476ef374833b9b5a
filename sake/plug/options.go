package plug

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Defaults of the options.
const (
	DefaultMaxBodyBytes       = 4 << 20          // 4 MiB
	DefaultSessionIdleTimeout = 30 * time.Minute // legacy sessions
	DefaultMaxSessions        = 10000
	DefaultReplayBuffer       = 256 // events per legacy SSE stream
	// DefaultReplaySessionBytes bounds the replay events one legacy
	// session keeps across its streams.
	DefaultReplaySessionBytes = 4 << 20 // 4 MiB
	// DefaultReplayTotalBytes bounds the replay events the handler keeps
	// across all sessions.
	DefaultReplayTotalBytes = 64 << 20 // 64 MiB
	DefaultResumeGrace      = 30 * time.Second
	// DefaultBodyReadTimeout bounds the time to read a request body.
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultRetryAfter is the Retry-After of a 503 whose cause does not
	// say when to retry (with a RetryAfter() time.Duration method): the
	// token verifier cannot decide right now, the session store cannot be
	// reached, there is no room for a session.
	DefaultRetryAfter = 5 * time.Second
)

// keepAliveInterval is how often an idle GET stream gets an SSE comment, so
// proxies and clients do not take it for dead.
const keepAliveInterval = 25 * time.Second

// Option configures a Handler.
type Option func(*config)

type config struct {
	hosts       []string // lower-cased; empty means the loopback rule
	anyHost     bool
	origins     []string // lower-cased scheme://host[:port]; empty means same host
	anyOrigin   bool
	maxBody     int64
	bodyTimeout time.Duration
	idleTimeout time.Duration
	maxSessions int
	resumeGrace time.Duration
	replay      int
	// replay bytes per session and per handler
	replaySessionBytes int64
	replayTotalBytes   int64
	identify           func(r *http.Request) (*sake.Identity, error)
	metadataURL        string
	logger             *slog.Logger
	keepAlive          time.Duration
}

func defaultConfig() config {
	return config{
		maxBody:            DefaultMaxBodyBytes,
		bodyTimeout:        DefaultBodyReadTimeout,
		idleTimeout:        DefaultSessionIdleTimeout,
		maxSessions:        DefaultMaxSessions,
		resumeGrace:        DefaultResumeGrace,
		replay:             DefaultReplayBuffer,
		replaySessionBytes: DefaultReplaySessionBytes,
		replayTotalBytes:   DefaultReplayTotalBytes,
		keepAlive:          keepAliveInterval,
	}
}

// AllowedHosts sets the values the Host header may take: a host name or
// address ("example.com", "10.0.0.7", "[::1]"), which allows it on any
// port, or host:port, which allows only that port. "*" disables the check.
// Without this option the handler protects against DNS rebinding: a
// request that arrived on a loopback address must name a loopback host
// (localhost, 127.0.0.0/8 or ::1, on any port), and a request that
// arrived on any other address may name any host. A refused Host gets 403.
// The option may be given several times; the lists add up.
func AllowedHosts(hosts ...string) Option {
	return func(c *config) {
		for _, h := range hosts {
			h = strings.ToLower(strings.TrimSpace(h))
			switch h {
			case "":
			case "*":
				c.anyHost = true
			default:
				c.hosts = append(c.hosts, h)
			}
		}
	}
}

// AllowedOrigins sets the values the Origin header may take, each as
// scheme://host[:port] ("https://app.example.com"). "*" disables the check.
// Without this option a request's Origin must name the host of its Host
// header, over http or https; a request that arrived on a loopback address
// also accepts any loopback Origin (localhost, 127.0.0.0/8 or ::1) on any
// port, since it comes from the user's own machine (a browser-based
// inspector on another port), while foreign origins stay refused. Without
// the option an Origin must also be exactly what a browser sends:
// http or https, "://", a host, and a port from 1 to 65535 in plain
// decimal if any, nothing more. A request without Origin (not from a
// browser) is not checked. A refused Origin gets 403. The lists of several
// calls add up.
func AllowedOrigins(origins ...string) Option {
	return func(c *config) {
		for _, o := range origins {
			o = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))
			switch o {
			case "":
			case "*":
				c.anyOrigin = true
			default:
				c.origins = append(c.origins, o)
			}
		}
	}
}

// MaxBodyBytes sets the largest request body accepted; a larger one gets
// 413. The default is 4 MiB; n <= 0 restores it.
func MaxBodyBytes(n int64) Option {
	return func(c *config) {
		if n <= 0 {
			n = DefaultMaxBodyBytes
		}
		c.maxBody = n
	}
}

// BodyReadTimeout bounds the time a request's body may take to arrive,
// from when the request reaches the handler; a POST body that has not
// arrived by then gets 408 and the connection is closed, so slow senders
// cannot hold connections open. A request refused before its body is read
// (403, 415, 401, ...) is bounded the same way: what is left of its body
// is read, or the connection closed, within the timeout. The deadline is
// lifted once the body is in: a long SSE response is not affected. The default is 30 seconds; d <= 0 removes the bound (the
// http.Server's ReadTimeout, if any, then applies). It needs a
// ResponseWriter that supports read deadlines (net/http's do).
func BodyReadTimeout(d time.Duration) Option {
	return func(c *config) { c.bodyTimeout = d }
}

// SessionIdleTimeout sets how long a legacy session may go without a
// message before the handler closes it. A session with a request running
// or a GET stream open is never idle. The default is 30 minutes; d <= 0
// keeps sessions until the client deletes them or Close is called.
func SessionIdleTimeout(d time.Duration) Option {
	return func(c *config) { c.idleTimeout = d }
}

// ResumeGrace sets how long a legacy request's stream may go without a
// client after its connection drops (or CloseStream closed it) before the
// request's questions to the client fail: a client that resumes with
// Last-Event-ID within it keeps the request whole. The default is 30
// seconds; d <= 0 keeps it.
func ResumeGrace(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			d = DefaultResumeGrace
		}
		c.resumeGrace = d
	}
}

// MaxSessions caps the number of live legacy sessions this handler keeps
// streams for. At the cap an initialize makes room as at the server's own
// limits (sake.Limits.MaxSessions, sake.Limits.MaxSessionsPerOwner, which
// come first): the least recently used idle session (no request running,
// no stream open) is closed; when none is idle the initialize gets 503
// with Retry-After and the JSON-RPC error sake.CodeServerBusy with
// sake.TooManySessionsMessage, the server's own refusal, and the client
// may try again later. This holds for initializes arriving together as
// for one at a time, and a session the server ends leaves this count at
// once. The default is 10000; n <= 0 removes the cap.
func MaxSessions(n int) Option {
	return func(c *config) { c.maxSessions = n }
}

// ReplayBuffer sets how many events each legacy SSE stream keeps for a
// client that reconnects with Last-Event-ID. The default is 256; n <= 0
// keeps none (a reconnecting client then gets only what comes next).
func ReplayBuffer(n int) Option {
	return func(c *config) {
		if n < 0 {
			n = 0
		}
		c.replay = n
	}
}

// ReplayBytes bounds the memory that events kept for Last-Event-ID take:
// perSession across the streams of one legacy session (default 4 MiB) and
// total across all sessions of the handler (default 64 MiB). When a bound
// is reached the oldest events under it are dropped; a client resuming from
// before a dropped event gets 410 Gone and a JSON-RPC error, and sends its
// request again. A value <= 0 restores its default; ReplayBuffer(0) keeps
// no events at all.
func ReplayBytes(perSession, total int64) Option {
	return func(c *config) {
		if perSession <= 0 {
			perSession = DefaultReplaySessionBytes
		}
		if total <= 0 {
			total = DefaultReplayTotalBytes
		}
		c.replaySessionBytes, c.replayTotalBytes = perSession, total
	}
}

// Identify sets the authentication seam: fn is called for every request
// (POST, GET and DELETE) and returns who is calling, or nil for an
// anonymous caller. An error refuses the request with 401 and a JSON-RPC
// error without id whose message is the error's text. If the error has a
// method WWWAuthenticate() string, its result becomes the
// WWW-Authenticate header (the bearer challenge, with resource_metadata);
// if it has a method HTTPStatus() int returning a 4xx code or 503, that
// status replaces 401 (for example 403 for insufficient scope, 503 when the
// token cannot be checked right now). A 503 carries Retry-After, from the
// error's RetryAfter() time.Duration method when it has one, else
// DefaultRetryAfter.
//
// A legacy session belongs to the identity that created it
// (Identity.Owner()): a request of another owner that names it gets 404,
// as if the session did not exist. Without this option every caller is
// anonymous.
func Identify(fn func(r *http.Request) (*sake.Identity, error)) Option {
	return func(c *config) { c.identify = fn }
}

// Logger sets where the handler logs refused requests (at debug level),
// lost replay events (warning) and panics (error). The default is
// slog.Default().
func Logger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}
