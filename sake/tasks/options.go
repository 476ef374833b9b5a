package tasks

import (
	"log/slog"
	"time"
)

// Defaults of a Manager built without options.
const (
	defaultMaxRunning = 64
	// DefaultMaxRunningPerOwner is how many running tasks one owner may
	// have when MaxRunningPerOwner is not given.
	DefaultMaxRunningPerOwner = 16
	defaultTTL                = time.Hour
	defaultMaxTTL             = 24 * time.Hour
	defaultPollInterval       = time.Second
	defaultPageSize           = 100
	maxPageSize               = 1000
	sweepInterval             = time.Minute
)

// config is what the options set.
type config struct {
	store        Store
	maxRunning   int
	maxPerOwner  int
	defaultTTL   time.Duration
	maxTTL       time.Duration
	pollInterval time.Duration
	now          func() time.Time
	logger       *slog.Logger
	feed         Feed
	maxUnstored  int
	retryMin     time.Duration
	retryMax     time.Duration
}

// Option configures a Manager.
type Option func(*config)

// WithStore keeps tasks in s instead of a fresh NewMemoryStore.
func WithStore(s Store) Option {
	return func(c *config) { c.store = s }
}

// MaxRunning limits how many tasks of the manager may be running (not yet
// terminal) at once; Create beyond it returns ErrTooMany. The default is
// 64; n <= 0 removes the limit.
func MaxRunning(n int) Option {
	return func(c *config) { c.maxRunning = n }
}

// MaxRunningPerOwner limits how many tasks one owner (Identity.Owner(); all
// anonymous callers share the owner "") may have running at once, so that
// one caller cannot take every slot of MaxRunning. Create beyond it returns
// an error matching ErrTooManyForOwner, which a tool call answers with the
// JSON-RPC error CodeServerBusy (-32000) telling the caller to wait for or
// cancel one of its tasks. The default is DefaultMaxRunningPerOwner (16); n
// <= 0 removes the limit. Like MaxRunning it counts the tasks this manager
// (this process) runs.
func MaxRunningPerOwner(n int) Option {
	return func(c *config) { c.maxPerOwner = n }
}

// DefaultTTL is the TTL of a task created without one
// (backend.TaskOptions.TTL 0). The default is one hour; a negative d means
// such tasks never expire.
func DefaultTTL(d time.Duration) Option {
	return func(c *config) { c.defaultTTL = d }
}

// MaxTTL caps every TTL a task gets. The default is 24 hours; d <= 0
// removes the cap.
func MaxTTL(d time.Duration) Option {
	return func(c *config) { c.maxTTL = d }
}

// DefaultPollInterval is the poll interval suggested to clients of tasks
// created without one. The default is one second.
func DefaultPollInterval(d time.Duration) Option {
	return func(c *config) { c.pollInterval = d }
}

// Clock replaces time.Now, for tests that move time to expire tasks.
func Clock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// Logger receives what the manager cannot report to a caller: store
// failures while a task's work reports, janitor sweeps, tasks failed by
// Shutdown. The default discards.
func Logger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// MaxUnstored limits how many final states of finished tasks the manager
// keeps while its store refuses them (a database that cannot be reached).
// Each is answered from memory by this manager and stored again with a
// backoff (RetryBackoff) until the store takes it. Beyond the limit a
// task's final state is lost, and logged: the task stays as stored
// (working) until its TTL, or until the replicas sharing the store take
// this one as stopped. The default is DefaultMaxUnstored (1000); n <= 0
// removes the limit.
func MaxUnstored(n int) Option {
	return func(c *config) { c.maxUnstored = n }
}

// RetryBackoff sets how long the manager waits between attempts to store
// the final states the store refused: first lo, doubling after each
// refusal up to hi. An attempt is also made at once when the store takes
// another write or the change feed reconnects. The defaults are 100 ms
// and 5 s; a value <= 0 keeps its default.
func RetryBackoff(lo, hi time.Duration) Option {
	return func(c *config) { c.retryMin, c.retryMax = lo, hi }
}

func newConfig(opts []Option) config {
	c := config{
		maxUnstored:  DefaultMaxUnstored,
		retryMin:     defaultRetryMin,
		retryMax:     defaultRetryMax,
		maxRunning:   defaultMaxRunning,
		maxPerOwner:  DefaultMaxRunningPerOwner,
		defaultTTL:   defaultTTL,
		maxTTL:       defaultMaxTTL,
		pollInterval: defaultPollInterval,
		now:          time.Now,
	}
	for _, o := range opts {
		o(&c)
	}
	if c.store == nil {
		c.store = NewMemoryStore()
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.retryMin <= 0 {
		c.retryMin = defaultRetryMin
	}
	if c.retryMax <= 0 {
		c.retryMax = defaultRetryMax
	}
	c.retryMax = max(c.retryMax, c.retryMin)
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c
}
