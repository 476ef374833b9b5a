package sake

import (
	"log/slog"
	"time"

	"github.com/sakemcp/sake-go/sake/backend"
)

// Option configures a Server.
type Option func(*options)

type options struct {
	name, title, version string
	instructions         string
	secret               []byte
	pageSize             int
	middleware           []Middleware
	logger               *slog.Logger
	listTTL              time.Duration
	readTTL              time.Duration
	discoverTTL          time.Duration
	cacheScope           string
	noServerInfoMeta     bool
	stateTTL             time.Duration
	askTimeout           time.Duration
	now                  func() time.Time
	require              Requirement
	tasks                backend.TaskManager
	skills               *skillsConfig
	hooks                *Hooks
	maxSessions          int
	maxSessionsPerOwner  int
	maxInFlight          int
	maxSubscriptions     int
	maxSubscriptionURI   int
	broker               backend.Broker
	sessionStore         backend.SessionStore
	lists                *listPolicy
}

// MaxSessions caps the legacy sessions of the server (default
// DefaultMaxSessions, 10000); n < 0 removes the cap. At the cap,
// initialize evicts its owner's least recently used idle session; when the
// owner has none idle, that of the owner holding the most sessions, if it
// holds more than one beyond the newcomer; otherwise it is refused with
// CodeServerBusy (HTTP 503, Reply.Cause ErrTooManySessions).
func MaxSessions(n int) Option { return func(o *options) { o.maxSessions = n } }

// MaxSessionsPerOwner caps the legacy sessions of one owner (default
// DefaultMaxSessionsPerOwner, 100); n < 0 removes the cap. Anonymous
// callers count per remote address (Inbound.RemoteAddr; an IPv6 address
// by its /64); without one (stdio, in memory) they have no per-owner cap. At the cap, initialize
// closes the owner's least recently used idle session, or is refused with
// CodeServerBusy when none is idle.
func MaxSessionsPerOwner(n int) Option { return func(o *options) { o.maxSessionsPerOwner = n } }

// MaxInFlight caps the requests running at once in one legacy session or
// on one connection (default DefaultMaxInFlight, 256); n < 0 removes the
// cap. A request beyond it is refused with CodeServerBusy.
func MaxInFlight(n int) Option { return func(o *options) { o.maxInFlight = n } }

// MaxSubscriptions caps the resources one legacy session subscribes to at
// once (default DefaultMaxSubscriptions, 256); n < 0 removes the cap. A
// resources/subscribe beyond it is refused with -32602 until the session
// unsubscribes from one; subscribing again to a URI it holds is not.
func MaxSubscriptions(n int) Option { return func(o *options) { o.maxSubscriptions = n } }

// MaxSubscriptionURIBytes caps the length of a URI a legacy session
// subscribes to (default DefaultMaxSubscriptionURIBytes, 2048 bytes);
// n < 0 removes the cap. A longer one is refused with -32602.
func MaxSubscriptionURIBytes(n int) Option { return func(o *options) { o.maxSubscriptionURI = n } }

// Tasks gives the server a task manager (see sake/tasks), so tools
// declared with ToolDef.Task run as tasks.
func Tasks(m backend.TaskManager) Option { return func(o *options) { o.tasks = m } }

// RequireScopes is the server-wide default: every tool, resource and prompt
// that declares no scopes of its own requires these.
func RequireScopes(scopes ...string) Option {
	return func(o *options) { o.require.Scopes = append(o.require.Scopes, scopes...) }
}

// RequireAuthentication is the server-wide default authentication level
// for components that declare none (see ToolDef.Authentication).
func RequireAuthentication(acrValues []string, maxAge time.Duration) Option {
	return func(o *options) { o.require.ACRValues, o.require.MaxAge = acrValues, maxAge }
}

// Clock sets the server's source of the current time (default time.Now),
// for tests of expiry.
func Clock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// RequestStateTTL sets how long a modern client has to answer a tool's
// questions (the lifetime of the signed requestState). Default 10 minutes.
func RequestStateTTL(d time.Duration) Option { return func(o *options) { o.stateTTL = d } }

// AskTimeout sets how long a legacy request waits for the client to answer
// a question it sent (elicitation, sampling, roots). Default 10 minutes.
func AskTimeout(d time.Duration) Option { return func(o *options) { o.askTimeout = d } }

// Name sets the server's name and version, as initialize and
// server/discover report them. The default name is the implementation's
// type name in snake_case and the version "0.0.0".
func Name(name, version string) Option {
	return func(o *options) { o.name, o.version = name, version }
}

// Title sets the server's human-readable title.
func Title(title string) Option { return func(o *options) { o.title = title } }

// Instructions sets the guidance for the model that initialize and
// server/discover return.
func Instructions(text string) Option { return func(o *options) { o.instructions = text } }

// Secret sets the key that signs pagination cursors and request states.
// Replicas behind one load balancer need the same secret; without this
// option each process draws a random one.
func Secret(key []byte) Option {
	return func(o *options) { o.secret = append([]byte(nil), key...) }
}

// PageSize sets how many items one page of tools/list, prompts/list,
// resources/list and resources/templates/list holds at most. The default
// is 1000, so most servers answer a list in one round trip; 0 or less
// lifts the count limit. Whatever the count, a page ends before the item
// that would take its JSON past 4 MiB (every page holds at least one
// item), and the rest follows its cursor.
func PageSize(n int) Option { return func(o *options) { o.pageSize = n } }

// Use adds middleware around the handling of every request. The first one
// added is the outermost.
func Use(mw ...Middleware) Option {
	return func(o *options) { o.middleware = append(o.middleware, mw...) }
}

// Logger sets where the server logs what goes wrong (panics in user code,
// results it cannot encode). The default is slog.Default().
func Logger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// CacheHints sets the ttlMs the modern era attaches to list results and to
// server/discover, to resources/read results, and the cacheScope of all of
// them ("public" or "private"). The defaults are 0 (revalidate every time)
// and "public"; a server whose lists or resources depend on the caller
// should say "private".
func CacheHints(lists, reads time.Duration, scope string) Option {
	return func(o *options) {
		o.listTTL, o.discoverTTL, o.readTTL, o.cacheScope = lists, lists, reads, scope
	}
}

// WithoutServerInfoMeta stops the modern era from putting the server's
// name and version in every result's _meta.
func WithoutServerInfoMeta() Option { return func(o *options) { o.noServerInfoMeta = true } }
