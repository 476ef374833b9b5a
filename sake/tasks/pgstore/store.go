package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// Store is a tasks.Store in PostgreSQL, shared by every replica whose
// Store uses the same database. Build it with New.
type Store struct {
	pool    *pgxpool.Pool
	replica string
	cfg     config
}

var _ tasks.Store = (*Store)(nil)

// New returns a Store on pool, first bringing the task tables up to date
// (the migrations are idempotent and safe to run from several replicas at
// once). The tables live in the schema the pool's search_path names.
// replica names this process among the replicas (NewReplicaID gives a
// fresh one); tasks it creates are recorded as run by it.
func New(ctx context.Context, pool *pgxpool.Pool, replica string, opts ...Option) (*Store, error) {
	if replica == "" {
		return nil, errors.New("pgstore: a replica name is required: pass pgstore.NewReplicaID() or a stable name per process")
	}
	if err := pgmigrate.Apply(ctx, pool, "tasks", migrations); err != nil {
		return nil, err
	}
	return &Store{pool: pool, replica: replica, cfg: newConfig(opts)}, nil
}

const columns = `id, owner, tool, status, status_message, created_at, last_updated_at,
	ttl_ms, poll_ms, input_requests, result, result_is_error, error`

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, t *sake.Task) error {
	if t.ID == "" {
		return errors.New("pgstore: a task needs an id")
	}
	reqs, result, errJSON, err := encode(t)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO sake_tasks (`+columns+`, expires_at, runner)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		ON CONFLICT (id) DO NOTHING`,
		t.ID, t.Owner, t.Tool, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt,
		t.TTL.Milliseconds(), t.PollInterval.Milliseconds(), reqs, result, t.ResultIsError, errJSON,
		expiresAt(t), s.replica)
	if err != nil {
		return fmt.Errorf("pgstore: creating task: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return tasks.ErrTaskExists
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*sake.Task, error) {
	return scanOne(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM sake_tasks WHERE id = $1`, id))
}

// Update implements tasks.Store: the row is locked for the length of fn,
// so concurrent updates from every replica apply one after another.
func (s *Store) Update(ctx context.Context, id string, fn func(*sake.Task) error) (*sake.Task, error) {
	var out *sake.Task
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		t, err := scanOne(tx.QueryRow(ctx, `SELECT `+columns+` FROM sake_tasks WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		owner := t.Owner
		if err := fn(t); err != nil {
			return err
		}
		t.ID, t.Owner = id, owner
		reqs, result, errJSON, err := encode(t)
		if err != nil {
			return err
		}
		// RETURNING gives the stored value as a fresh copy: the caller may
		// keep and change what fn saw.
		stored, err := scan(tx.QueryRow(ctx, `UPDATE sake_tasks SET tool = $2, status = $3, status_message = $4,
			created_at = $5, last_updated_at = $6, ttl_ms = $7, poll_ms = $8, input_requests = $9,
			result = $10, result_is_error = $11, error = $12, expires_at = $13 WHERE id = $1
			RETURNING `+columns,
			id, t.Tool, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt,
			t.TTL.Milliseconds(), t.PollInterval.Milliseconds(), reqs, result, t.ResultIsError, errJSON,
			expiresAt(t)))
		if err != nil {
			return fmt.Errorf("pgstore: updating task: %w", err)
		}
		out = stored
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sake_tasks WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("pgstore: deleting task: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return sake.ErrTaskNotFound
	}
	return nil
}

// List implements tasks.Store: newest first, ties in insertion order
// reversed, after a task of owner's.
func (s *Store) List(ctx context.Context, owner string, after string, limit int) ([]*sake.Task, error) {
	var lim any
	if limit > 0 {
		lim = limit
	}
	var rows pgx.Rows
	var err error
	if after == "" {
		rows, err = s.pool.Query(ctx, `SELECT `+columns+` FROM sake_tasks WHERE owner = $1
			ORDER BY created_at DESC, seq DESC LIMIT $2`, owner, lim)
	} else {
		var created time.Time
		var seq int64
		if err := s.pool.QueryRow(ctx, `SELECT created_at, seq FROM sake_tasks WHERE id = $1 AND owner = $2`,
			after, owner).Scan(&created, &seq); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return nil, sake.ErrTaskNotFound
			}
			return nil, fmt.Errorf("pgstore: listing tasks: %w", err)
		}
		rows, err = s.pool.Query(ctx, `SELECT `+columns+` FROM sake_tasks WHERE owner = $1
			AND (created_at, seq) < ($2, $3) ORDER BY created_at DESC, seq DESC LIMIT $4`,
			owner, created, seq, lim)
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: listing tasks: %w", err)
	}
	defer rows.Close()
	var out []*sake.Task
	for rows.Next() {
		t, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgstore: listing tasks: %w", err)
	}
	return out, nil
}

// Expired implements tasks.Store.
func (s *Store) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var lim any
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM sake_tasks WHERE expires_at < $1 LIMIT $2`, now, lim)
	if err != nil {
		return nil, fmt.Errorf("pgstore: listing expired tasks: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pgstore: listing expired tasks: %w", err)
	}
	return ids, nil
}

// expiresAt is the end of t's TTL, or nil when it has none.
func expiresAt(t *sake.Task) any {
	if t.TTL <= 0 {
		return nil
	}
	return t.CreatedAt.Add(t.TTL)
}

// encode turns the JSON-bearing fields of t into column values (nil for
// absent ones).
func encode(t *sake.Task) (reqs, result, errJSON []byte, err error) {
	if t.InputRequests != nil {
		if reqs, err = json.Marshal(t.InputRequests); err != nil {
			return nil, nil, nil, fmt.Errorf("pgstore: encoding input requests: %w", err)
		}
	}
	if t.Result != nil {
		result = t.Result
	}
	if t.Error != nil {
		if errJSON, err = json.Marshal(t.Error); err != nil {
			return nil, nil, nil, fmt.Errorf("pgstore: encoding the task's error: %w", err)
		}
	}
	return reqs, result, errJSON, nil
}

// scanOne reads one task, or sake.ErrTaskNotFound.
func scanOne(row pgx.Row) (*sake.Task, error) {
	t, err := scan(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, sake.ErrTaskNotFound
	}
	return t, err
}

// scan reads the columns of one task.
func scan(row pgx.Row) (*sake.Task, error) {
	var t sake.Task
	var ttl, poll int64
	var reqs, result, errJSON []byte
	if err := row.Scan(&t.ID, &t.Owner, &t.Tool, &t.Status, &t.StatusMessage, &t.CreatedAt, &t.LastUpdatedAt,
		&ttl, &poll, &reqs, &result, &t.ResultIsError, &errJSON); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("pgstore: reading task: %w", err)
	}
	t.CreatedAt, t.LastUpdatedAt = t.CreatedAt.UTC(), t.LastUpdatedAt.UTC()
	t.TTL, t.PollInterval = time.Duration(ttl)*time.Millisecond, time.Duration(poll)*time.Millisecond
	if reqs != nil {
		if err := json.Unmarshal(reqs, &t.InputRequests); err != nil {
			return nil, fmt.Errorf("pgstore: decoding input requests: %w", err)
		}
	}
	if result != nil {
		t.Result = json.RawMessage(result)
	}
	if errJSON != nil {
		t.Error = new(sake.Error)
		if err := json.Unmarshal(errJSON, t.Error); err != nil {
			return nil, fmt.Errorf("pgstore: decoding the task's error: %w", err)
		}
	}
	return &t, nil
}
