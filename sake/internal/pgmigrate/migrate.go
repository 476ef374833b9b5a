// Package pgmigrate applies the versioned, idempotent schema migrations of
// Sake's PostgreSQL stores.
//
// Each component (tasks, sessions, the authorization server, ...) owns an
// ordered list of steps. Apply runs, in one transaction under an advisory
// lock, the steps a database has not seen yet and records them in the
// table sake_migrations, so replicas starting at once apply each step
// exactly once and a restart applies nothing.
package pgmigrate

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lockKey is the advisory lock that serialises migrations across replicas.
const lockKey = 0x73616b65 // "sake"

// Apply brings component's schema up to date with steps: step i (from 1)
// runs once, in order, in the schema the pool's search_path names.
func Apply(ctx context.Context, pool *pgxpool.Pool, component string, steps []string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockKey)); err != nil {
			return fmt.Errorf("pgmigrate: taking the migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS sake_migrations (
			component text NOT NULL,
			version integer NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now(),
			PRIMARY KEY (component, version))`); err != nil {
			return fmt.Errorf("pgmigrate: creating sake_migrations: %w", err)
		}
		var done int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM sake_migrations WHERE component = $1`,
			component).Scan(&done); err != nil {
			return fmt.Errorf("pgmigrate: reading %s's version: %w", component, err)
		}
		if done > len(steps) {
			return fmt.Errorf("pgmigrate: the database has %s schema version %d, newer than this program's %d: upgrade the program", component, done, len(steps))
		}
		for i := done; i < len(steps); i++ {
			if _, err := tx.Exec(ctx, steps[i]); err != nil {
				return fmt.Errorf("pgmigrate: %s step %d: %w", component, i+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO sake_migrations (component, version) VALUES ($1, $2)`,
				component, i+1); err != nil {
				return fmt.Errorf("pgmigrate: recording %s step %d: %w", component, i+1, err)
			}
		}
		return nil
	})
}
