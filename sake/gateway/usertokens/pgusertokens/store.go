package pgusertokens

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/gateway/usertokens"
	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
)

// migrations are the schema steps of the user tokens table, applied in
// order once per database. Never edit a step that has shipped: add one.
var migrations = []string{
	`CREATE TABLE sake_user_tokens (
		user_id    bytea NOT NULL, -- bytes, not text: a name may hold any byte, NUL included
		resource   bytea NOT NULL,
		sealed     bytea NOT NULL,
		updated_at timestamptz NOT NULL,
		PRIMARY KEY (user_id, resource)
	);
	CREATE INDEX sake_user_tokens_by_updated_at ON sake_user_tokens (updated_at);`,
}

// ErrTooLarge is returned (wrapped, with the sizes) by Put when the sealed
// token, the user's name or the resource is past its bound. Nothing is
// stored.
var ErrTooLarge = errors.New("pgusertokens: past a bound of the token store")

// Store is a usertokens.Backend in PostgreSQL, shared by every replica
// on the database. Build it with New. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	cfg  config
}

var _ usertokens.Backend = (*Store)(nil)

// New returns a Store on pool, first bringing its table up to date (the
// migrations are idempotent and safe to run from several replicas at
// once). The pool stays the caller's to close.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgusertokens: New needs a pool (pgxpool.New with the database's URL)")
	}
	if err := pgmigrate.Apply(ctx, pool, "user_tokens", migrations); err != nil {
		return nil, fmt.Errorf("pgusertokens: creating the table sake_user_tokens: %w", err)
	}
	return &Store{pool: pool, cfg: newConfig(opts)}, nil
}

// Get implements usertokens.Backend: the sealed token of user at
// resource, or nil and no error when there is none.
func (s *Store) Get(ctx context.Context, user, resource string) ([]byte, error) {
	var sealed []byte
	err := s.pool.QueryRow(ctx,
		`SELECT sealed FROM sake_user_tokens WHERE user_id = $1 AND resource = $2`,
		[]byte(user), []byte(resource)).Scan(&sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgusertokens: reading a user's token at %s: %w", resource, err)
	}
	if sealed == nil {
		sealed = []byte{} // a row, even empty, is a token: never report it absent
	}
	return sealed, nil
}

// Put implements usertokens.Backend: it keeps sealed as the token of user
// at resource, replacing any, and deletes the user's least recently saved
// tokens past MaxPerUser, all in one transaction.
func (s *Store) Put(ctx context.Context, user, resource string, sealed []byte) error {
	switch {
	case len(sealed) > s.cfg.maxSealedBytes:
		return fmt.Errorf("%w: a sealed token of %d bytes, over the %d of MaxSealedBytes", ErrTooLarge, len(sealed), s.cfg.maxSealedBytes)
	case len(user) > MaxUserBytes:
		return fmt.Errorf("%w: a user's name of %d bytes, over MaxUserBytes (%d)", ErrTooLarge, len(user), MaxUserBytes)
	case len(resource) > MaxResourceBytes:
		return fmt.Errorf("%w: a resource of %d bytes, over MaxResourceBytes (%d)", ErrTooLarge, len(resource), MaxResourceBytes)
	}
	if sealed == nil {
		sealed = []byte{}
	}
	// An explicit transaction, committed only once the batch has run: a
	// Put whose context ends while it waits for its turn stores nothing
	// (an implicit transaction would commit on the server without it).
	b := &pgx.Batch{}
	// One user's saves take turns, on every replica: the bound below
	// counts what the others committed.
	b.Queue(`SELECT pg_advisory_xact_lock($1)`, lockKey(user))
	// clock_timestamp, not now: a save that waited for its turn is more
	// recent than the one it waited for.
	b.Queue(`INSERT INTO sake_user_tokens (user_id, resource, sealed, updated_at)
		VALUES ($1, $2, $3, clock_timestamp())
		ON CONFLICT (user_id, resource) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
		[]byte(user), []byte(resource), sealed)
	b.Queue(`DELETE FROM sake_user_tokens WHERE user_id = $1 AND resource IN (
		SELECT resource FROM sake_user_tokens WHERE user_id = $1 AND resource <> $2
		ORDER BY updated_at DESC, resource OFFSET $3)`,
		[]byte(user), []byte(resource), s.cfg.maxPerUser-1)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if err != nil {
		return fmt.Errorf("pgusertokens: saving a user's token at %s: %w", resource, err)
	}
	return nil
}

// Delete implements usertokens.Backend: it forgets the token of user at
// resource.
func (s *Store) Delete(ctx context.Context, user, resource string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sake_user_tokens WHERE user_id = $1 AND resource = $2`, []byte(user), []byte(resource)); err != nil {
		return fmt.Errorf("pgusertokens: deleting a user's token at %s: %w", resource, err)
	}
	return nil
}

// DeleteUser implements usertokens.Backend: it forgets every token of
// user.
func (s *Store) DeleteUser(ctx context.Context, user string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sake_user_tokens WHERE user_id = $1`, []byte(user)); err != nil {
		return fmt.Errorf("pgusertokens: deleting a user's tokens: %w", err)
	}
	return nil
}

// Sweep deletes every token not saved for idle and says how many it
// deleted. A vault saves a user's token when they sign in and each time it
// is refreshed, so with idle longer than the remotes' access tokens last
// (90 days, say) Sweep deletes only the tokens of users no longer seen:
// they sign in again. Run it now and then (every hour) to keep the table
// to the users still seen. idle must be positive.
func (s *Store) Sweep(ctx context.Context, idle time.Duration) (int64, error) {
	if idle <= 0 {
		return 0, fmt.Errorf("pgusertokens: Sweep needs a positive idle time, not %v", idle)
	}
	tag, err := s.pool.Exec(ctx,
		`DELETE FROM sake_user_tokens WHERE updated_at < clock_timestamp() - $1 * interval '1 microsecond'`,
		idle.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("pgusertokens: sweeping idle tokens: %w", err)
	}
	return tag.RowsAffected(), nil
}

// lockKey is the advisory lock of user's saves: a hash of the name under
// a prefix of this table's own (another user of the same hash only waits
// its turn).
func lockKey(user string) int64 {
	h := fnv.New64a()
	h.Write([]byte("sake_user_tokens\x00"))
	h.Write([]byte(user))
	return int64(h.Sum64())
}
