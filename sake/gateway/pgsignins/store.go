package pgsignins

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
)

// migrations are the schema steps of the table, applied in order once
// per database. Never edit a step that has shipped: add one.
var migrations = []string{
	`CREATE TABLE sake_pending_sign_ins (
		state      bytea PRIMARY KEY,
		user_id    bytea NOT NULL,
		entry      bytea NOT NULL,
		sealed     bytea,             -- NULL once ended
		ended      boolean NOT NULL DEFAULT false,
		failure    text NOT NULL DEFAULT '',
		expires_at timestamptz NOT NULL
	);
	CREATE UNIQUE INDEX sake_pending_sign_ins_open ON sake_pending_sign_ins (user_id, entry) WHERE NOT ended;
	CREATE INDEX sake_pending_sign_ins_by_expiry ON sake_pending_sign_ins (expires_at);`,
}

// Fixed bounds.
const (
	// MaxSealedBytes bounds one sealed sign-in: 64 KiB.
	MaxSealedBytes = 64 << 10
	// MaxNameBytes bounds a state, a user's name and an entry's name:
	// 2 KiB each.
	MaxNameBytes = 2 << 10
	// MaxFailureBytes bounds why a sign-in failed, as kept: 1 KiB.
	MaxFailureBytes = 1 << 10
)

// ErrTooLarge is returned (wrapped, with the sizes) by Add when the
// sealed sign-in, its state, user or entry is past its bound. Nothing is
// kept.
var ErrTooLarge = errors.New("pgsignins: past a bound of the sign-in store")

// Store is a gateway.SignInStore in PostgreSQL, shared by every replica
// on the database. Build it with New. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	cfg  config
}

var _ gateway.SignInStore = (*Store)(nil)

// New returns a Store on pool, first bringing its table up to date (the
// migrations are idempotent and safe to run from several replicas at
// once). The pool stays the caller's to close.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgsignins: New needs a pool (pgxpool.New with the database's URL)")
	}
	if err := pgmigrate.Apply(ctx, pool, "pending_sign_ins", migrations); err != nil {
		return nil, fmt.Errorf("pgsignins: creating the table sake_pending_sign_ins: %w", err)
	}
	return &Store{pool: pool, cfg: newConfig(opts)}, nil
}

// tableLock is the advisory lock Add and Finish take, so that their
// counts hold across replicas: a hash-like constant of the table's own.
const tableLock int64 = 0x73616b655f70736e // "sake_psn"

// micros is d in microseconds, at least 0.
func micros(d time.Duration) int64 { return max(d.Microseconds(), 0) }

// Add implements gateway.SignInStore: in one transaction holding the
// table's advisory lock, it deletes the expired rows, returns the user's
// open sign-in at the entry if there is one, checks the bounds and
// inserts s. Its expiry is counted on the database's clock.
func (s *Store) Add(ctx context.Context, in gateway.OpenSignIn) (gateway.OpenSignIn, error) {
	switch {
	case len(in.Sealed) > MaxSealedBytes:
		return gateway.OpenSignIn{}, fmt.Errorf("%w: a sealed sign-in of %d bytes, over %d", ErrTooLarge, len(in.Sealed), MaxSealedBytes)
	case len(in.State) > MaxNameBytes || len(in.User) > MaxNameBytes || len(in.Entry) > MaxNameBytes:
		return gateway.OpenSignIn{}, fmt.Errorf("%w: a state, user or entry over %d bytes", ErrTooLarge, MaxNameBytes)
	case in.State == "":
		return gateway.OpenSignIn{}, errors.New("pgsignins: a sign-in without a state")
	}
	var out gateway.OpenSignIn
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, tableLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sake_pending_sign_ins WHERE expires_at <= clock_timestamp()`); err != nil {
			return err
		}
		open, err := scanOpen(tx.QueryRow(ctx, `SELECT state, user_id, entry, sealed, expires_at FROM sake_pending_sign_ins
			WHERE user_id = $1 AND entry = $2 AND NOT ended`, []byte(in.User), []byte(in.Entry)))
		if err != nil || open != nil {
			if open != nil {
				out = *open
			}
			return err
		}
		var all, mine int
		if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE user_id = $1) FROM sake_pending_sign_ins WHERE NOT ended`,
			[]byte(in.User)).Scan(&all, &mine); err != nil {
			return err
		}
		if all >= s.cfg.maxOpen || mine >= s.cfg.maxPerUser {
			return fmt.Errorf("%w: %d open (at most %d), %d of this user's (at most %d)", gateway.ErrTooManySignIns, all, s.cfg.maxOpen, mine, s.cfg.maxPerUser)
		}
		sealed := in.Sealed
		if sealed == nil {
			sealed = []byte{}
		}
		var expires time.Time
		if err := tx.QueryRow(ctx, `INSERT INTO sake_pending_sign_ins (state, user_id, entry, sealed, expires_at)
			VALUES ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 microsecond') RETURNING expires_at`,
			[]byte(in.State), []byte(in.User), []byte(in.Entry), sealed, micros(time.Until(in.Expires))).Scan(&expires); err != nil {
			return err
		}
		out = in
		out.Expires = expires
		return nil
	})
	if errors.Is(err, gateway.ErrTooManySignIns) {
		return gateway.OpenSignIn{}, err
	}
	if err != nil {
		return gateway.OpenSignIn{}, fmt.Errorf("pgsignins: keeping a sign-in: %w", err)
	}
	return out, nil
}

// scanOpen reads one open sign-in, or nil.
func scanOpen(row pgx.Row) (*gateway.OpenSignIn, error) {
	var state, user, entry, sealed []byte
	var expires time.Time
	err := row.Scan(&state, &user, &entry, &sealed, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &gateway.OpenSignIn{State: string(state), User: string(user), Entry: string(entry), Sealed: sealed, Expires: expires}, nil
}

// Open implements gateway.SignInStore.
func (s *Store) Open(ctx context.Context, user, entry string) (*gateway.OpenSignIn, error) {
	o, err := scanOpen(s.pool.QueryRow(ctx, `SELECT state, user_id, entry, sealed, expires_at FROM sake_pending_sign_ins
		WHERE user_id = $1 AND entry = $2 AND NOT ended AND expires_at > clock_timestamp()`, []byte(user), []byte(entry)))
	if err != nil {
		return nil, fmt.Errorf("pgsignins: reading a user's open sign-in: %w", err)
	}
	return o, nil
}

// Take implements gateway.SignInStore: one DELETE ... RETURNING, so that
// of two replicas given the same state at once, one alone gets the row.
// An expired row is deleted and not returned.
func (s *Store) Take(ctx context.Context, state string) (*gateway.OpenSignIn, error) {
	var user, entry, sealed []byte
	var expires time.Time
	var live bool
	err := s.pool.QueryRow(ctx, `DELETE FROM sake_pending_sign_ins WHERE state = $1 AND NOT ended
		RETURNING user_id, entry, sealed, expires_at, expires_at > clock_timestamp()`, []byte(state)).Scan(&user, &entry, &sealed, &expires, &live)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgsignins: taking a sign-in: %w", err)
	}
	if !live {
		return nil, nil
	}
	return &gateway.OpenSignIn{State: state, User: string(user), Entry: string(entry), Sealed: sealed, Expires: expires}, nil
}

// Finish implements gateway.SignInStore: it keeps how the sign-in ended
// for gateway.EndedSignInTTL (or until it would have expired), unless
// MaxOpen ended ones, or MaxPerUser of the user's, are kept already.
func (s *Store) Finish(ctx context.Context, in gateway.OpenSignIn, failure string) error {
	if len(failure) > MaxFailureBytes {
		failure = failure[:MaxFailureBytes]
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, tableLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO sake_pending_sign_ins (state, user_id, entry, sealed, ended, failure, expires_at)
			SELECT $1, $2, $3, NULL, true, $4, least($5, clock_timestamp() + $6 * interval '1 microsecond')
			WHERE (SELECT count(*) FROM sake_pending_sign_ins WHERE ended AND expires_at > clock_timestamp()) < $7
			  AND (SELECT count(*) FROM sake_pending_sign_ins WHERE ended AND user_id = $2 AND expires_at > clock_timestamp()) < $8
			ON CONFLICT (state) DO NOTHING`,
			[]byte(in.State), []byte(in.User), []byte(in.Entry), failure, in.Expires, micros(gateway.EndedSignInTTL), s.cfg.maxOpen, s.cfg.maxPerUser)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgsignins: recording how a sign-in ended: %w", err)
	}
	return nil
}

// Outcome implements gateway.SignInStore: one DELETE ... RETURNING.
func (s *Store) Outcome(ctx context.Context, state string) (bool, string, error) {
	var failure string
	err := s.pool.QueryRow(ctx, `DELETE FROM sake_pending_sign_ins WHERE state = $1 AND ended RETURNING failure`, []byte(state)).Scan(&failure)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("pgsignins: reading how a sign-in ended: %w", err)
	}
	return true, failure, nil
}

// Forget implements gateway.SignInStore.
func (s *Store) Forget(ctx context.Context, user, entry string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sake_pending_sign_ins WHERE user_id = $1 AND entry = $2 AND NOT ended`, []byte(user), []byte(entry)); err != nil {
		return fmt.Errorf("pgsignins: forgetting a user's open sign-in: %w", err)
	}
	return nil
}
