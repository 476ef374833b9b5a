package pgstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

// registerLock is the advisory lock that serialises registrations, so
// that the bounds hold across replicas.
const registerLock = 0x73616b6552 // "sakeR"

// expireBatch bounds the expired registrations one registration deletes.
const expireBatch = 1000

// createdAt is when c counts as registered.
func createdAt(c *server.Client, now time.Time) time.Time {
	if c.Created.IsZero() {
		return now
	}
	return c.Created
}

// RegisterClient implements server.Store in one transaction under an
// advisory lock: registrations are serialised across replicas.
func (s *Store) RegisterClient(ctx context.Context, c *server.Client, lim server.RegistrationLimits) error {
	cp := *c
	cp.Dynamic = true
	b, err := json.Marshal(&cp)
	if err != nil {
		return err
	}
	created := createdAt(c, s.now())
	// A refusal still commits what it forgot (expired or evicted unused
	// registrations): they would go anyway.
	var refused error
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(registerLock)); err != nil {
			return wrap(err)
		}
		if lim.UnusedTTL > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM sake_oauth_clients WHERE id IN (SELECT id FROM sake_oauth_clients
				WHERE dynamic AND NOT authorized AND created_at < $1 ORDER BY created_at LIMIT $2)`,
				created.Add(-lim.UnusedTTL), expireBatch); err != nil {
				return wrap(err)
			}
		}
		var fromAddr, total int
		if err := tx.QueryRow(ctx, `SELECT
				(SELECT count(*) FROM sake_oauth_clients WHERE dynamic AND NOT authorized AND registered_from = $1),
				(SELECT count(*) FROM sake_oauth_clients WHERE dynamic)`, c.RegisteredFrom).Scan(&fromAddr, &total); err != nil {
			return wrap(err)
		}
		if lim.PerAddress > 0 && fromAddr >= lim.PerAddress {
			refused = server.ErrTooManyRegistrations
			return nil
		}
		if lim.Total > 0 && total >= lim.Total {
			need := total - lim.Total + 1
			tag, err := tx.Exec(ctx, `DELETE FROM sake_oauth_clients WHERE id IN (SELECT id FROM sake_oauth_clients
				WHERE dynamic AND NOT authorized ORDER BY created_at LIMIT $1)`, need)
			if err != nil {
				return wrap(err)
			}
			if int(tag.RowsAffected()) < need {
				refused = server.ErrStoreFull
				return nil
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO sake_oauth_clients (id, dynamic, client, registered_from, authorized, created_at)
			VALUES ($1, true, $2, $3, $4, $5)`, c.ID, b, c.RegisteredFrom, c.Authorized, created)
		return wrap(err)
	})
	if err != nil {
		return err
	}
	return refused
}

// ClientAuthorized implements server.Store.
func (s *Store) ClientAuthorized(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `UPDATE sake_oauth_clients SET authorized = true,
		client = jsonb_set(client, '{authorized}', 'true') WHERE id = $1 AND NOT authorized`, id)
	return wrap(err)
}
