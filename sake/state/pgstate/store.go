package pgstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
	"github.com/sakemcp/sake-go/sake/state"
)

// migrations are the schema steps of the state table, applied in order
// once per database. Never edit a step that has shipped: add one.
var migrations = []string{
	`CREATE TABLE sake_state (
		scope      text NOT NULL,
		key        text NOT NULL,
		value      bytea NOT NULL,
		version    bigint NOT NULL,
		expires_at timestamptz NOT NULL,
		PRIMARY KEY (scope, key)
	);
	CREATE INDEX sake_state_by_expiry ON sake_state (expires_at);`,
}

// Store is a state.Store on a PostgreSQL pool.
type Store struct {
	pool *pgxpool.Pool
}

var _ state.Store = (*Store)(nil)

// New returns a Store on pool, first bringing its table up to date.
func New(ctx context.Context, pool *pgxpool.Pool) (*Store, error) {
	if err := pgmigrate.Apply(ctx, pool, "state", migrations); err != nil {
		return nil, err
	}
	return &Store{pool: pool}, nil
}

// Load implements state.Store.
func (s *Store) Load(ctx context.Context, scope, key string) (state.Entry, error) {
	var e state.Entry
	err := s.pool.QueryRow(ctx,
		`SELECT value, version FROM sake_state WHERE scope = $1 AND key = $2 AND expires_at > now()`,
		scope, key).Scan(&e.Value, &e.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return state.Entry{}, state.ErrNotFound
	}
	if err != nil {
		return state.Entry{}, fmt.Errorf("pgstate: reading %q: %w", key, err)
	}
	return e, nil
}

// Save implements state.Store.
func (s *Store) Save(ctx context.Context, w state.Write) (int64, error) {
	var version int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('sake_state:' || $1, 0))`, w.Scope); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sake_state WHERE scope = $1 AND key <> $2 AND expires_at <= now()`, w.Scope, w.Key); err != nil {
			return err
		}
		var old int64
		var live bool
		err := tx.QueryRow(ctx, `SELECT version, expires_at > now() FROM sake_state WHERE scope = $1 AND key = $2`, w.Scope, w.Key).Scan(&old, &live)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		switch {
		case w.IfVersion == state.AnyVersion:
		case w.IfVersion == 0 && live:
			return state.ErrConflict
		case w.IfVersion > 0 && (!live || old != w.IfVersion):
			return state.ErrConflict
		}
		if w.MaxScopeBytes > 0 || w.MaxScopeKeys > 0 {
			var bytes int64
			var keys int
			if err := tx.QueryRow(ctx,
				`SELECT coalesce(sum(octet_length(key) + octet_length(value)), 0), count(*) FROM sake_state WHERE scope = $1 AND key <> $2 AND expires_at > now()`,
				w.Scope, w.Key).Scan(&bytes, &keys); err != nil {
				return err
			}
			bytes += int64(len(w.Key) + len(w.Value))
			keys++
			if w.MaxScopeBytes > 0 && bytes > w.MaxScopeBytes || w.MaxScopeKeys > 0 && keys > w.MaxScopeKeys {
				return state.ErrFull
			}
		}
		version = old + 1
		_, err = tx.Exec(ctx, `INSERT INTO sake_state (scope, key, value, version, expires_at)
			VALUES ($1, $2, $3, $4, now() + $5 * interval '1 microsecond')
			ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, version = excluded.version, expires_at = excluded.expires_at`,
			w.Scope, w.Key, w.Value, version, w.TTL.Microseconds())
		return err
	})
	if errors.Is(err, state.ErrConflict) || errors.Is(err, state.ErrFull) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("pgstate: writing %q: %w", w.Key, err)
	}
	return version, nil
}

// Delete implements state.Store.
func (s *Store) Delete(ctx context.Context, scope, key string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sake_state WHERE scope = $1 AND key = $2`, scope, key); err != nil {
		return fmt.Errorf("pgstate: deleting %q: %w", key, err)
	}
	return nil
}

// Clear implements state.Store.
func (s *Store) Clear(ctx context.Context, scope string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sake_state WHERE scope = $1`, scope); err != nil {
		return fmt.Errorf("pgstate: clearing a scope: %w", err)
	}
	return nil
}

// Sweep removes every expired value and says how many it removed: run it
// now and then (every few minutes) to keep the table small.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sake_state WHERE expires_at <= now()`)
	if err != nil {
		return 0, fmt.Errorf("pgstate: sweeping: %w", err)
	}
	return tag.RowsAffected(), nil
}
