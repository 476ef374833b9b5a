package pgbuckets

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
	"github.com/sakemcp/sake-go/sake/middleware"
)

// Defaults of the options.
const (
	DefaultLeaseTTL = time.Second
	DefaultMaxKeys  = 100_000
)

var migrations = []string{
	`CREATE TABLE sake_rate_buckets (
		limit_name text NOT NULL,
		subject    text NOT NULL,
		full_at    bigint NOT NULL, -- when the bucket is full again, in ns since the Unix epoch
		taken      bigint NOT NULL, -- what the last statement took, for RETURNING
		PRIMARY KEY (limit_name, subject)
	);
	CREATE INDEX sake_rate_buckets_by_full_at ON sake_rate_buckets (full_at);`,
}

// Store is a middleware.BucketStore in PostgreSQL. Build it with New.
type Store struct {
	pool *pgxpool.Pool
	cfg  config

	mu     sync.Mutex
	leases map[middleware.BucketKey]*lease
}

type lease struct {
	tokens  int
	expires time.Time
}

var _ middleware.BucketStore = (*Store)(nil)

// Option configures a Store.
type Option func(*config)

type config struct {
	leaseTokens int
	leaseTTL    time.Duration
	maxKeys     int
}

// LeaseTokens sets how many tokens a replica takes from the shared bucket
// at once (default 10% of the bucket's burst, at least 1; capped at the
// burst). 1 is exact and costs a statement per call.
func LeaseTokens(n int) Option { return func(c *config) { c.leaseTokens = n } }

// LeaseTTL sets how long leased tokens may be spent (default
// DefaultLeaseTTL, one second).
func LeaseTTL(d time.Duration) Option { return func(c *config) { c.leaseTTL = d } }

// MaxKeys bounds the leases held in memory (default DefaultMaxKeys).
func MaxKeys(n int) Option { return func(c *config) { c.maxKeys = n } }

// New returns a Store on pool, first bringing its table up to date (the
// migrations are idempotent and safe to run from several replicas at
// once). The table lives in the schema the pool's search_path names.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	cfg := config{leaseTTL: DefaultLeaseTTL, maxKeys: DefaultMaxKeys}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.leaseTTL <= 0 {
		cfg.leaseTTL = DefaultLeaseTTL
	}
	if cfg.maxKeys <= 0 {
		cfg.maxKeys = DefaultMaxKeys
	}
	if err := pgmigrate.Apply(ctx, pool, "rate_buckets", migrations); err != nil {
		return nil, err
	}
	return &Store{pool: pool, cfg: cfg, leases: map[middleware.BucketKey]*lease{}}, nil
}

// take takes up to $4 tokens (at most what the bucket holds) in one
// statement, and returns how many it took and when the bucket is full
// again. $3 is now, $5 the burst and $6 the interval, in ns.
const take = `WITH p AS (SELECT $3::bigint AS now, $4::bigint AS lease, $5::bigint AS burst, $6::bigint AS step)
	INSERT INTO sake_rate_buckets AS b (limit_name, subject, full_at, taken)
	SELECT $1, $2, p.now + LEAST(p.lease, p.burst) * p.step, LEAST(p.lease, p.burst) FROM p
	ON CONFLICT (limit_name, subject) DO UPDATE SET
		taken = GREATEST(0, LEAST($4::bigint, ($5::bigint * $6::bigint - (GREATEST(b.full_at, $3::bigint) - $3::bigint)) / $6::bigint)),
		full_at = GREATEST(b.full_at, $3::bigint) + GREATEST(0, LEAST($4::bigint, ($5::bigint * $6::bigint - (GREATEST(b.full_at, $3::bigint) - $3::bigint)) / $6::bigint)) * $6::bigint
	RETURNING taken, full_at`

// Take implements middleware.BucketStore: from the replica's lease when it
// holds a token, else with one statement that leases more.
func (s *Store) Take(ctx context.Context, key middleware.BucketKey, r middleware.Rate, now time.Time) (time.Duration, error) {
	s.mu.Lock()
	if l := s.leases[key]; l != nil && l.tokens > 0 && now.Before(l.expires) {
		l.tokens--
		s.mu.Unlock()
		return 0, nil
	}
	s.mu.Unlock()
	n := s.cfg.leaseTokens
	if n <= 0 {
		n = max(1, r.Burst/10)
	}
	n = min(n, r.Burst)
	interval, nowNs := int64(r.Interval), now.UnixNano()
	var taken, fullAt int64
	if err := s.pool.QueryRow(ctx, take, key.Limit, key.Subject.String(), nowNs, int64(n), int64(r.Burst), interval).Scan(&taken, &fullAt); err != nil {
		return 0, fmt.Errorf("pgbuckets: taking tokens of %s for %s: %w", key.Limit, key.Subject, err)
	}
	if taken == 0 {
		wait := fullAt - nowNs - int64(r.Burst-1)*interval
		return time.Duration(max(wait, 1)), nil
	}
	if taken > 1 {
		s.mu.Lock()
		l := s.leases[key]
		if l == nil {
			s.bound(now)
			l = &lease{}
			s.leases[key] = l
		}
		if !now.Before(l.expires) {
			l.tokens = 0
		}
		l.tokens += int(taken - 1)
		l.expires = now.Add(s.cfg.leaseTTL)
		s.mu.Unlock()
	}
	return 0, nil
}

// Return implements middleware.BucketStore: the token goes back to the
// replica's lease (it was leased from the shared bucket).
func (s *Store) Return(_ context.Context, key middleware.BucketKey, r middleware.Rate, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leases[key]
	if l == nil {
		s.bound(now)
		l = &lease{}
		s.leases[key] = l
	}
	if !now.Before(l.expires) {
		l.tokens = 0
		l.expires = now.Add(s.cfg.leaseTTL)
	}
	l.tokens++
	return nil
}

// bound makes room for one lease: it drops the expired ones, then any.
// s.mu is held.
func (s *Store) bound(now time.Time) {
	if len(s.leases) < s.cfg.maxKeys {
		return
	}
	for k, l := range s.leases {
		if !now.Before(l.expires) {
			delete(s.leases, k)
		}
	}
	for k := range s.leases {
		if len(s.leases) < s.cfg.maxKeys {
			break
		}
		delete(s.leases, k)
	}
}

// Sweep deletes the buckets that are full at now: they hold nothing a
// fresh bucket would not. Run it now and then (every few minutes) from one
// replica or all; it returns how many rows it deleted.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sake_rate_buckets WHERE full_at <= $1`, now.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("pgbuckets: sweeping full buckets: %w", err)
	}
	return tag.RowsAffected(), nil
}
