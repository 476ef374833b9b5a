package sake

import (
	"context"
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
	middleware           []Middleware
	resultReaders        int // how many of middleware may read or change results (Use, not UseObserving)
	logger               *slog.Logger
	listTTL              time.Duration
	readTTL              time.Duration
	discoverTTL          time.Duration
	cacheScope           string
	noServerInfoMeta     bool
	now                  func() time.Time
	require              Requirement
	tasks                backend.TaskManager
	skills               *skillsConfig
	hooks                *Hooks                                                               // Request set only when a hook may read results (Observe, not ObserveOutcome)
	requestHook          func(context.Context, *Request) (context.Context, func(RequestDone)) // every Request hook, in order
	limits               Limits
	broker               backend.Broker
	sessionStore         backend.SessionStore
	lists                *listPolicy
	unlisted             ClaimFunc
	explainMissing       func(kind, name string) error
}

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

// Use adds middleware around the handling of every request. The first one
// added is the outermost.
func Use(mw ...Middleware) Option {
	return func(o *options) {
		o.middleware = append(o.middleware, mw...)
		o.resultReaders += len(mw)
	}
}

// UseObserving adds middleware, like Use, that only observes the outcome
// of each request: it may read the request, time the call to next and
// look at the error next returns and, of a *ToolResult, at IsError; it
// must neither read the rest of the result nor change or replace it.
// Metrics, access logs and health counters are such middleware.
//
// What this promise buys: a tool result left encoded (a proxy's, see
// protocol.ToolResultFromWire) still goes into the reply as the remote
// wrote it, without being decoded, which Use's middleware prevents since
// it may look. An observing middleware that reads the result anyway may
// find its Content and StructuredContent empty (call Decode on it first,
// or use Use). Observing middleware takes its place among the others in
// the order the options are given, the first added the outermost.
func UseObserving(mw ...Middleware) Option {
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
