package pgreplica

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
	"github.com/sakemcp/sake-go/sake/pgbroker"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// migrations are the tables of this package (the others belong to
// pgstore and the rest).
var migrations = []string{
	`CREATE TABLE sake_secrets (
		name  text PRIMARY KEY,
		value bytea NOT NULL
	)`,
}

// Replica is this process's membership of a group of replicas on one
// database: its id, the shared signing secret, the task manager on
// PostgreSQL and the broker. Build it with Open; Close it after the
// server's Shutdown.
type Replica struct {
	id       string
	secret   []byte
	store    *pgstore.Store
	tasks    *tasks.Manager
	broker   *pgbroker.Broker
	sessions *sessionStore
}

// Option configures Open.
type Option func(*config)

type config struct {
	logger *slog.Logger
	tasks  []tasks.Option
	store  []pgstore.Option
	// sessionCache is how many session records are kept in memory.
	sessionCache int
	// confirmWait bounds the wait for the others' confirmation of a
	// change.
	confirmWait time.Duration
}

// Logger receives what the replica's parts cannot report to a caller (lost
// connections, replicas found stopped). The default discards.
func Logger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// TaskOptions passes options to the task manager (limits, TTLs); the
// store is always the database.
func TaskOptions(opts ...tasks.Option) Option {
	return func(c *config) { c.tasks = append(c.tasks, opts...) }
}

// StoreOptions passes options to the task store (sake/tasks/pgstore):
// how often this replica records its heartbeat (pgstore.Heartbeat, 10 s by
// default) and how long another may go without one before the tasks it
// was running are failed (pgstore.DeadAfter, one minute by default). A
// pgstore.Logger given here replaces Logger for the store.
func StoreOptions(opts ...pgstore.Option) Option {
	return func(c *config) { c.store = append(c.store, opts...) }
}

// SessionCache bounds how many legacy session records the replica keeps in
// memory, so that a message of a known session reads nothing: n records
// (DefaultSessionCache, 10000, by default); beyond it an arbitrary one is
// forgotten and read again when next used. 0 keeps the default; a
// negative n keeps none (every message reads its record).
func SessionCache(n int) Option {
	return func(c *config) {
		if n != 0 {
			c.sessionCache = n
		}
	}
}

// ConfirmWait bounds how long a change of a session (a log level,
// subscriptions) or its end (a DELETE, an idle expiry) waits for every
// other replica listening to confirm it took the change in, before it is
// answered anyway (DefaultConfirmWait, 5 s, by default; a replica whose
// database connection died is not waited for). A d of 0 or less keeps
// the default.
func ConfirmWait(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.confirmWait = d
		}
	}
}

// Open joins the replicas that share pool's database: it runs the
// migrations, reads (or, first of all, creates) the signing secret every
// replica shares, and starts listening to the others.
func Open(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Replica, error) {
	c := config{logger: slog.New(slog.DiscardHandler), sessionCache: DefaultSessionCache, confirmWait: DefaultConfirmWait}
	for _, o := range opts {
		o(&c)
	}
	if err := pgmigrate.Apply(ctx, pool, "replica", migrations); err != nil {
		return nil, err
	}
	if err := pgmigrate.Apply(ctx, pool, "sessions", sessionMigrations); err != nil {
		return nil, err
	}
	secret, err := sharedSecret(ctx, pool)
	if err != nil {
		return nil, err
	}
	id := pgstore.NewReplicaID()
	sopts := append([]pgstore.Option{pgstore.Logger(c.logger)}, c.store...)
	store, err := pgstore.New(ctx, pool, id, sopts...)
	if err != nil {
		return nil, err
	}
	topts := append([]tasks.Option{tasks.Logger(c.logger)}, c.tasks...)
	topts = append(topts, tasks.WithStore(store))
	return &Replica{
		id:       id,
		secret:   secret,
		store:    store,
		tasks:    tasks.New(topts...),
		broker:   pgbroker.New(pool, id, c.logger),
		sessions: newSessionStore(pool, id, c.logger, c.sessionCache, c.confirmWait),
	}, nil
}

// sharedSecret returns the secret that signs cursors and request states,
// the same for every replica: the first replica draws it at random.
func sharedSecret(ctx context.Context, pool *pgxpool.Pool) ([]byte, error) {
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	if _, err := pool.Exec(ctx, `INSERT INTO sake_secrets (name, value) VALUES ('signing', $1)
		ON CONFLICT (name) DO NOTHING`, fresh); err != nil {
		return nil, fmt.Errorf("pgreplica: storing the signing secret: %w", err)
	}
	var secret []byte
	if err := pool.QueryRow(ctx, `SELECT value FROM sake_secrets WHERE name = 'signing'`).Scan(&secret); err != nil {
		return nil, fmt.Errorf("pgreplica: reading the signing secret: %w", err)
	}
	if len(secret) < 32 {
		return nil, errors.New("pgreplica: the stored signing secret is shorter than 32 bytes: delete the row 'signing' of sake_secrets")
	}
	return secret, nil
}

// ID returns this replica's id.
func (r *Replica) ID() string { return r.id }

// Tasks returns the task manager on the database.
func (r *Replica) Tasks() *tasks.Manager { return r.tasks }

// Options returns the server options that make a sake.Server one of the
// replicas: the shared secret, the tasks, the broker, the legacy
// sessions.
func (r *Replica) Options() []sake.Option {
	return []sake.Option{sake.Secret(r.secret), sake.Tasks(r.tasks), sake.Broker(r.broker),
		sake.SessionStore(r.sessions)}
}

// Close shuts the task manager down (see tasks.Manager.Shutdown): tasks
// still running when ctx ends are failed. Call it after the server's
// Shutdown; the pool is the caller's to close.
func (r *Replica) Close(ctx context.Context) error {
	return r.tasks.Shutdown(ctx)
}
