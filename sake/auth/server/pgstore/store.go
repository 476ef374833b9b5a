package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/auth/server"
	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
)

// migrations are the schema steps, applied once per database in order.
// Never edit a step that has shipped: add one.
var migrations = []string{
	`CREATE TABLE sake_oauth_clients (
		id      text PRIMARY KEY,
		dynamic boolean NOT NULL,
		client  jsonb NOT NULL
	);
	CREATE TABLE sake_oauth_credentials (
		hash       text PRIMARY KEY,
		kind       text NOT NULL,
		family     text NOT NULL,
		expires_at timestamptz NOT NULL,
		used       boolean NOT NULL,
		revoked    boolean NOT NULL,
		grant_data jsonb NOT NULL
	);
	CREATE INDEX sake_oauth_credentials_by_family ON sake_oauth_credentials (family) WHERE family <> '';
	CREATE INDEX sake_oauth_credentials_by_expiry ON sake_oauth_credentials (expires_at);
	CREATE TABLE sake_oauth_revoked_families (
		family text PRIMARY KEY,
		until  timestamptz NOT NULL
	);
	CREATE TABLE sake_oauth_consents (
		subject   text NOT NULL,
		client_id text NOT NULL,
		scopes    text[] NOT NULL,
		PRIMARY KEY (subject, client_id)
	);`,
	`CREATE INDEX sake_oauth_credentials_revoked_access ON sake_oauth_credentials (expires_at)
		WHERE kind = 'access' AND revoked;`,
	// Clients registered before count as authorized: never evicted.
	`ALTER TABLE sake_oauth_clients
		ADD COLUMN registered_from text NOT NULL DEFAULT '',
		ADD COLUMN authorized boolean NOT NULL DEFAULT true,
		ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
	CREATE INDEX sake_oauth_clients_unused ON sake_oauth_clients (created_at) WHERE dynamic AND NOT authorized;
	CREATE INDEX sake_oauth_clients_unused_from ON sake_oauth_clients (registered_from) WHERE dynamic AND NOT authorized;`,
	`CREATE TABLE sake_oauth_upstream_tokens (
		key        text PRIMARY KEY,
		subject    text NOT NULL,
		sealed     bytea NOT NULL,
		updated_at timestamptz NOT NULL,
		expires_at timestamptz NOT NULL
	);
	CREATE INDEX sake_oauth_upstream_tokens_by_subject ON sake_oauth_upstream_tokens (subject, updated_at);
	CREATE INDEX sake_oauth_upstream_tokens_by_expiry ON sake_oauth_upstream_tokens (expires_at);`,
}

// sweepEvery is how many stored credentials trigger a sweep of expired
// ones; sweepBatch bounds one sweep.
const (
	sweepEvery = 256
	sweepBatch = 1000
)

// Store is a server.Store in PostgreSQL, and a server.RevocationList fed
// by LISTEN/NOTIFY. Close it when done.
type Store struct {
	pool      *pgxpool.Pool
	now       func() time.Time
	log       *slog.Logger
	maxDenied int
	puts      atomic.Int64

	listenConfig *pgx.ConnConfig
	feed         feed
	tidyEvery    time.Duration
	onLive       func(live bool) // for tests
	onTidy       func()          // for tests
	// beforeRevokeCommit runs in RevokeFamily's transaction; for tests.
	beforeRevokeCommit func()
	// beforeApply, when set, runs in the listening goroutine before each
	// notice is applied; for tests.
	beforeApply atomic.Pointer[func(payload string)]
	stop        context.CancelFunc
	done        chan struct{}
}

var _ server.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// Clock sets the time source (default time.Now); use the server's.
func Clock(now func() time.Time) Option {
	return func(s *Store) {
		if now != nil {
			s.now = now
		}
	}
}

// Logger sets where the revocation feed reports a lost connection
// (default slog.Default()).
func Logger(l *slog.Logger) Option {
	return func(s *Store) {
		if l != nil {
			s.log = l
		}
	}
}

// MaxDenied bounds the revoked, unexpired access tokens kept in memory
// (default DefaultMaxDenied); beyond it each verified token costs a
// database read until they expire.
func MaxDenied(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxDenied = n
		}
	}
}

// New returns a store on pool, first bringing its tables up to date, then
// listening for revocations on a connection of its own (opened like the
// pool's; LISTEN needs a session, not a transaction-pooling proxy). It
// returns once the list of revoked tokens is loaded.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	if err := pgmigrate.Apply(ctx, pool, "oauth", migrations); err != nil {
		return nil, err
	}
	s := &Store{pool: pool, now: time.Now, log: slog.Default(), maxDenied: DefaultMaxDenied,
		listenConfig: pool.Config().ConnConfig, tidyEvery: defaultTidy, done: make(chan struct{})}
	s.feed.denied = map[string]time.Time{}
	s.feed.syncs = map[string]chan struct{}{}
	for _, o := range opts {
		o(s)
	}
	lctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	ready := make(chan error, 1)
	go func() {
		defer close(s.done)
		s.listen(lctx, ready)
	}()
	select {
	case err := <-ready:
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("pgstore: listening for revoked tokens: %w", err)
		}
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
	return s, nil
}

// Close stops the revocation feed and waits for it; the pool stays open.
// After Close, AccessRevoked fails closed.
func (s *Store) Close() {
	s.stop()
	<-s.done
}

// PutClient implements server.Store.
func (s *Store) PutClient(ctx context.Context, c *server.Client) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO sake_oauth_clients (id, dynamic, client, registered_from, authorized, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET dynamic = EXCLUDED.dynamic, client = EXCLUDED.client,
			registered_from = EXCLUDED.registered_from, authorized = EXCLUDED.authorized, created_at = EXCLUDED.created_at`,
		c.ID, c.Dynamic, b, c.RegisteredFrom, c.Authorized || !c.Dynamic, createdAt(c, s.now()))
	return wrap(err)
}

// Client implements server.Store.
func (s *Store) Client(ctx context.Context, id string) (*server.Client, error) {
	var b []byte
	err := s.pool.QueryRow(ctx, `SELECT client FROM sake_oauth_clients WHERE id = $1`, id).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, server.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	var c server.Client
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("pgstore: decoding client %q: %w", id, err)
	}
	return &c, nil
}

// CountClients implements server.Store.
func (s *Store) CountClients(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM sake_oauth_clients WHERE dynamic`).Scan(&n)
	return n, wrap(err)
}

// PutCredential implements server.Store.
func (s *Store) PutCredential(ctx context.Context, c *server.Credential) error {
	g, err := json.Marshal(&c.Grant)
	if err != nil {
		return err
	}
	now := s.now()
	// The family's lock (one batch: one round trip, one implicit
	// transaction) orders this against a RevokeFamily of the family:
	// the insert sees the revocation committed, or the revocation sees
	// the credential. An access token stored into a revoked family is
	// announced like the ones RevokeFamily revoked, in the same
	// statement.
	b := &pgx.Batch{}
	if c.Family != "" {
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, c.Family)
	}
	b.Queue(`WITH c AS (
		INSERT INTO sake_oauth_credentials (hash, kind, family, expires_at, used, revoked, grant_data)
		VALUES ($1, $2, $3, $4, $5, $6 OR EXISTS (SELECT 1 FROM sake_oauth_revoked_families WHERE family = $3 AND $3 <> ''), $7)
		ON CONFLICT (hash) DO UPDATE SET kind = EXCLUDED.kind, family = EXCLUDED.family, expires_at = EXCLUDED.expires_at,
			used = EXCLUDED.used, revoked = EXCLUDED.revoked, grant_data = EXCLUDED.grant_data
		RETURNING kind, revoked)
		SELECT pg_notify($8, $9) FROM c WHERE c.revoked AND c.kind = 'access'`,
		c.Hash, string(c.Kind), c.Family, c.Expires, c.Used, c.Revoked, g, channel,
		denialPayloads([]string{c.Hash}, []time.Time{c.Expires})[0])
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return wrap(err)
	}
	if s.puts.Add(1)%sweepEvery == 0 {
		s.sweep(ctx, now)
	}
	return nil
}

// sweep deletes a bounded batch of expired credentials (revoked access
// tokens a while later, so that a feed reading them again still denies
// them past a verifier's leeway) and revoked-family records.
func (s *Store) sweep(ctx context.Context, now time.Time) {
	_, _ = s.pool.Exec(ctx, `DELETE FROM sake_oauth_credentials WHERE hash IN
		(SELECT hash FROM sake_oauth_credentials WHERE expires_at <= $1 LIMIT $2)`, now.Add(-deniedGrace), sweepBatch)
	_, _ = s.pool.Exec(ctx, `DELETE FROM sake_oauth_revoked_families WHERE family IN
		(SELECT family FROM sake_oauth_revoked_families WHERE until <= $1 LIMIT $2)`, now, sweepBatch)
}

func scanCredential(row pgx.Row) (*server.Credential, error) {
	var c server.Credential
	var kind string
	var g []byte
	err := row.Scan(&c.Hash, &kind, &c.Family, &c.Expires, &c.Used, &c.Revoked, &g)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, server.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	c.Kind = server.Kind(kind)
	if err := json.Unmarshal(g, &c.Grant); err != nil {
		return nil, fmt.Errorf("pgstore: decoding a credential: %w", err)
	}
	return &c, nil
}

// Credential implements server.Store.
func (s *Store) Credential(ctx context.Context, hash string) (*server.Credential, error) {
	return scanCredential(s.pool.QueryRow(ctx, `SELECT hash, kind, family, expires_at, used, revoked, grant_data
		FROM sake_oauth_credentials WHERE hash = $1 AND expires_at > $2`, hash, s.now()))
}

// Consume implements server.Store: one statement, so concurrent
// consumers are serialised by the row lock and only one sees it unused.
func (s *Store) Consume(ctx context.Context, hash string) (*server.Credential, error) {
	return scanCredential(s.pool.QueryRow(ctx, `UPDATE sake_oauth_credentials c SET used = true
		FROM (SELECT hash, used FROM sake_oauth_credentials WHERE hash = $1 AND expires_at > $2 FOR UPDATE) old
		WHERE c.hash = old.hash
		RETURNING c.hash, c.kind, c.family, c.expires_at, old.used, c.revoked, c.grant_data`, hash, s.now()))
}

// Delete implements server.Store.
func (s *Store) Delete(ctx context.Context, hash string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sake_oauth_credentials WHERE hash = $1`, hash)
	return wrap(err)
}

// RevokeFamily implements server.Store, and announces the family's
// access tokens to every replica's feed when the transaction commits.
func (s *Store) RevokeFamily(ctx context.Context, family string) error {
	if family == "" {
		return nil
	}
	now := s.now()
	until := now.Add(time.Hour)
	var payloads []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// See PutCredential.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, family); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `UPDATE sake_oauth_credentials SET revoked = true WHERE family = $1
			RETURNING hash, kind, expires_at`, family)
		if err != nil {
			return err
		}
		var hashes []string
		var expires []time.Time
		var hash, kind string
		var exp time.Time
		if _, err := pgx.ForEachRow(rows, []any{&hash, &kind, &exp}, func() error {
			if exp.After(until) {
				until = exp
			}
			if kind == string(server.KindAccess) && exp.After(now.Add(-deniedGrace)) {
				hashes = append(hashes, hash)
				expires = append(expires, exp)
			}
			return nil
		}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sake_oauth_upstream_tokens WHERE key = $1`, family); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sake_oauth_revoked_families (family, until) VALUES ($1, $2)
			ON CONFLICT (family) DO UPDATE SET until = greatest(sake_oauth_revoked_families.until, EXCLUDED.until)`, family, until); err != nil {
			return err
		}
		payloads = denialPayloads(hashes, expires)
		for _, p := range payloads {
			if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, p); err != nil {
				return err
			}
		}
		if s.beforeRevokeCommit != nil {
			s.beforeRevokeCommit()
		}
		return nil
	})
	if err != nil {
		return wrap(err)
	}
	// This replica refuses the tokens at once, not when its own notice
	// comes back through the feed (which applies them again, harmlessly).
	for _, p := range payloads {
		s.apply(p)
	}
	return nil
}

// PutConsent implements server.Store.
func (s *Store) PutConsent(ctx context.Context, subject, clientID string, scopes []string) error {
	if scopes == nil {
		scopes = []string{}
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO sake_oauth_consents (subject, client_id, scopes) VALUES ($1, $2, $3)
		ON CONFLICT (subject, client_id) DO UPDATE SET scopes = EXCLUDED.scopes`, subject, clientID, scopes)
	return wrap(err)
}

// Consent implements server.Store.
func (s *Store) Consent(ctx context.Context, subject, clientID string) ([]string, error) {
	var scopes []string
	err := s.pool.QueryRow(ctx, `SELECT scopes FROM sake_oauth_consents WHERE subject = $1 AND client_id = $2`,
		subject, clientID).Scan(&scopes)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, server.ErrNotFound
	}
	return scopes, wrap(err)
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("pgstore: %w", err)
}
