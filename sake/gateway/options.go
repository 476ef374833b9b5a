package gateway

import (
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// Option configures New.
type Option func(*options)

type options struct {
	serverOpts []sake.Option
	clientOpts []client.Option
	proxyOpts  []proxy.Option
	logger     *slog.Logger
	httpClient *http.Client
	// ownHTTPClient says httpClient is the gateway's own, its idle
	// connections closed with it.
	ownHTTPClient bool
	backoffMin    time.Duration
	backoffMax    time.Duration
	healthEvery   time.Duration
	startTimeout  time.Duration
	hooks         Hooks
	lockPath      string
	// The per-user entries' settings (see peruser.go).
	vault           *usertokens.Vault
	publicURL       string
	signInTimeout   time.Duration
	maxPending      int
	signInStore     SignInStore
	maxUserSessions int
	userIdle        time.Duration
}

// The defaults of the options.
const (
	// DefaultBackoffMin is the first wait before a dead remote is
	// restarted or reconnected: 500ms, doubled on each failure.
	DefaultBackoffMin = 500 * time.Millisecond
	// DefaultBackoffMax is the longest wait between two attempts: 30s.
	DefaultBackoffMax = 30 * time.Second
	// DefaultHealthCheck is how often a connected remote is pinged: 10s.
	DefaultHealthCheck = 10 * time.Second
	// DefaultStartTimeout is how long New waits for the remotes' first
	// connections: 30s.
	DefaultStartTimeout = 30 * time.Second
)

// ServerOptions are options of the gateway's sake server (its name,
// authorization requirements, middleware, task manager...).
func ServerOptions(opts ...sake.Option) Option {
	return func(o *options) { o.serverOpts = append(o.serverOpts, opts...) }
}

// ClientOptions are options of every remote's client (message size,
// capabilities...), after the gateway's own.
func ClientOptions(opts ...client.Option) Option {
	return func(o *options) { o.clientOpts = append(o.clientOpts, opts...) }
}

// ProxyOptions are options of every remote's proxy (proxy.MaxInFlight,
// proxy.CallTimeout, proxy.MaxListItems, filters...).
func ProxyOptions(opts ...proxy.Option) Option {
	return func(o *options) { o.proxyOpts = append(o.proxyOpts, opts...) }
}

// Logger receives the gateway's records: remotes that connect, die and
// come back (default slog.Default()).
func Logger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// HTTPClient is the client of the url entries (default: one of the
// gateway's own, see NewHTTPClient). A client given here is used as it is:
// its transport should keep as many idle connections per host as calls
// run at once (http.DefaultTransport keeps 2, so under load every other
// call opens a connection and closes it, leaving sockets in TIME-WAIT).
func HTTPClient(hc *http.Client) Option { return func(o *options) { o.httpClient = hc } }

// DefaultIdleConnsPerHost is how many idle connections the gateway's own
// HTTP client keeps to each url entry's host: 64, as many as a remote is
// sent calls at once (proxy.DefaultMaxInFlight).
const DefaultIdleConnsPerHost = proxy.DefaultMaxInFlight

// NewHTTPClient returns the HTTP client a gateway uses for its url
// entries when HTTPClient is not given: connections kept alive and
// reused, up to idlePerHost idle ones per host (DefaultIdleConnsPerHost
// when 0), HTTP/2 when an https server offers it, and the proxy settings
// of the environment.
func NewHTTPClient(idlePerHost int) *http.Client {
	if idlePerHost <= 0 {
		idlePerHost = DefaultIdleConnsPerHost
	}
	var tr *http.Transport
	if def, ok := http.DefaultTransport.(*http.Transport); ok {
		tr = def.Clone()
	} else {
		// The application replaced http.DefaultTransport with a wrapper:
		// start from the standard library's settings.
		tr = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:          100,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	tr.MaxIdleConnsPerHost = idlePerHost
	tr.MaxIdleConns = max(tr.MaxIdleConns, 4*idlePerHost)
	tr.ForceAttemptHTTP2 = true
	return &http.Client{Transport: tr}
}

// Backoff sets the waits between attempts to bring back a dead remote:
// first minWait, doubling up to maxWait.
func Backoff(minWait, maxWait time.Duration) Option {
	return func(o *options) { o.backoffMin, o.backoffMax = minWait, maxWait }
}

// HealthCheck sets how often a connected remote is pinged; one that does
// not answer (within the same time) is taken as dead.
func HealthCheck(every time.Duration) Option { return func(o *options) { o.healthEvery = every } }

// StartTimeout bounds how long New waits for the remotes' first
// connections; those not connected by then go on trying in the
// background.
func StartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

func (o *options) defaults() {
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if o.httpClient == nil {
		o.httpClient = NewHTTPClient(0)
		o.ownHTTPClient = true
	}
	if o.backoffMin <= 0 {
		o.backoffMin = DefaultBackoffMin
	}
	if o.backoffMax < o.backoffMin {
		o.backoffMax = max(DefaultBackoffMax, o.backoffMin)
	}
	if o.healthEvery <= 0 {
		o.healthEvery = DefaultHealthCheck
	}
	if o.startTimeout <= 0 {
		o.startTimeout = DefaultStartTimeout
	}
	if o.signInTimeout <= 0 {
		o.signInTimeout = DefaultSignInTimeout
	}
	if o.maxPending <= 0 {
		o.maxPending = DefaultMaxPendingSignIns
	}
	if o.signInStore == nil {
		o.signInStore = MemorySignIns(o.maxPending, 0)
	}
	if o.maxUserSessions <= 0 {
		o.maxUserSessions = DefaultMaxUserSessions
	}
	if o.userIdle <= 0 {
		o.userIdle = DefaultUserSessionIdle
	}
}

// The defaults of the per-user entries' settings ("oauth": {"perUser":
// true}).
const (
	// DefaultSignInTimeout is how long a sign-in the gateway asked a
	// caller for stays open (its link works, the call waits): 10 minutes.
	DefaultSignInTimeout = 10 * time.Minute
	// DefaultMaxPendingSignIns bounds the sign-ins open at once, over all
	// users and entries: 1000. A caller holds at most one per entry.
	DefaultMaxPendingSignIns = 1000
	// DefaultMaxUserSessions bounds the users connected at once to one
	// per-user entry: 1000. Past it, the session used least recently is
	// closed (its user's next call opens it again, with the same token).
	DefaultMaxUserSessions = 1000
	// DefaultUserSessionIdle is how long a user's session with a per-user
	// entry is kept unused before it is closed: 15 minutes.
	DefaultUserSessionIdle = 15 * time.Minute
)

// UserTokens is where the per-user entries keep each caller's tokens,
// sealed (usertokens.New over usertokens.Memory, or over pgusertokens so
// that replicas share them). A configuration with a per-user entry needs
// it.
func UserTokens(v *usertokens.Vault) Option { return func(o *options) { o.vault = v } }

// PublicURL is the gateway's own URL as browsers reach it (for example
// "https://mcp.example.com"): the per-user entries' sign-ins come back to
// PublicURL + CallbackPath, which the program serves with
// Gateway.SignInHandler. A configuration with a per-user entry needs it.
func PublicURL(u string) Option { return func(o *options) { o.publicURL = strings.TrimSuffix(u, "/") } }

// SignIns bounds the per-user entries' sign-ins: each stays open for
// timeout (default DefaultSignInTimeout), and at most maxPending are open
// at once (default DefaultMaxPendingSignIns).
func SignIns(timeout time.Duration, maxPending int) Option {
	return func(o *options) { o.signInTimeout, o.maxPending = timeout, maxPending }
}

// PendingSignIns keeps the per-user entries' sign-ins in progress in
// store instead of this process's memory: with a store the replicas share
// (pgsignins), a sign-in begun on one replica completes when its callback
// lands on another, and the caller waiting on the first goes on. Its
// bounds are store's own (SignIns' maxPending bounds the in-memory one).
func PendingSignIns(store SignInStore) Option { return func(o *options) { o.signInStore = store } }

// UserSessions bounds each per-user entry's sessions: at most max users
// connected at once (default DefaultMaxUserSessions), each session closed
// after idle unused (default DefaultUserSessionIdle).
func UserSessions(maxUsers int, idle time.Duration) Option {
	return func(o *options) { o.maxUserSessions, o.userIdle = maxUsers, idle }
}
