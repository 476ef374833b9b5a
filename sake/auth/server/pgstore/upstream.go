package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sakemcp/sake-go/sake/auth/server"
)

var _ server.UpstreamTokenStore = (*Store)(nil)

// PutUpstreamToken implements server.UpstreamTokenStore. The family's
// lock orders it against a RevokeFamily of the same key (see
// PutCredential); the subject's lock orders the bound.
func (s *Store) PutUpstreamToken(ctx context.Context, t *server.UpstreamToken, perSubject int) error {
	if perSubject <= 0 {
		perSubject = server.DefaultUpstreamTokensPerSubject
	}
	return wrap(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, t.Key); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('upstream-subject:' || $1, 0))`, t.Subject); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sake_oauth_upstream_tokens (key, subject, sealed, updated_at, expires_at)
			SELECT $1, $2, $3, $4, $5
			WHERE NOT EXISTS (SELECT 1 FROM sake_oauth_revoked_families WHERE family = $1)
			ON CONFLICT (key) DO UPDATE SET subject = EXCLUDED.subject, sealed = EXCLUDED.sealed,
				updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at`,
			t.Key, t.Subject, t.Sealed, t.Updated, t.Expires); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM sake_oauth_upstream_tokens WHERE key IN (
			SELECT key FROM sake_oauth_upstream_tokens WHERE subject = $1
			ORDER BY updated_at DESC, key OFFSET $2)`, t.Subject, perSubject)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM sake_oauth_upstream_tokens WHERE key IN (
			SELECT key FROM sake_oauth_upstream_tokens WHERE expires_at <= $1 LIMIT $2)`, s.now(), sweepBatch)
		return err
	}))
}

func (s *Store) upstreamRow(ctx context.Context, query string, arg any) (*server.UpstreamToken, error) {
	var t server.UpstreamToken
	err := s.pool.QueryRow(ctx, query, arg, s.now()).Scan(&t.Key, &t.Subject, &t.Sealed, &t.Updated, &t.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, server.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	return &t, nil
}

// UpstreamToken implements server.UpstreamTokenStore.
func (s *Store) UpstreamToken(ctx context.Context, key string) (*server.UpstreamToken, error) {
	return s.upstreamRow(ctx, `SELECT key, subject, sealed, updated_at, expires_at FROM sake_oauth_upstream_tokens
		WHERE key = $1 AND expires_at > $2`, key)
}

// LatestUpstreamToken implements server.UpstreamTokenStore.
func (s *Store) LatestUpstreamToken(ctx context.Context, subject string) (*server.UpstreamToken, error) {
	return s.upstreamRow(ctx, `SELECT key, subject, sealed, updated_at, expires_at FROM sake_oauth_upstream_tokens
		WHERE subject = $1 AND expires_at > $2 ORDER BY updated_at DESC LIMIT 1`, subject)
}

// DeleteUpstreamToken implements server.UpstreamTokenStore.
func (s *Store) DeleteUpstreamToken(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sake_oauth_upstream_tokens WHERE key = $1`, key)
	return wrap(err)
}
