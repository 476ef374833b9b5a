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
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pglisten"
	"github.com/sakemcp/sake-go/sake/internal/pgmigrate"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// Store is a tasks.Store in PostgreSQL, shared by every replica whose
// Store uses the same database. Build it with New.
//
// While it listens (Listen, which a Manager calls), a Store keeps in
// memory the tasks it wrote and those whose changes the other replicas
// announced, each at its version in the table: Get answers from there
// without a read, and Update writes in one statement when it knows the
// latest version. Every write announces itself in the statement that makes
// it (NOTIFY), so a replica hears of each change as it commits.
type Store struct {
	pool    *pgxpool.Pool
	replica string
	channel string
	cfg     config
	cache   *cache
	echoes  pglisten.Echoes
	// taken waits, after a change a client asked for, until every other
	// replica listening has taken it in.
	taken *pglisten.Confirmations
	// batch runs creations and conditional updates, together when they
	// arrive together.
	batch *batcher
	// ownPrefix begins this replica's notices (see ownEcho).
	ownPrefix string
	// heardHook, when set (by tests), is called with each notice from
	// another replica once it is taken in.
	heardHook func(id, kind string)
}

var _ tasks.Store = (*Store)(nil)

// New returns a Store on pool, first bringing the task tables up to date
// (the migrations are idempotent and safe to run from several replicas at
// once). The tables live in the schema the pool's search_path names.
// replica names this process among the replicas (NewReplicaID gives a
// fresh one); tasks it creates are recorded as run by it.
//
// Stores hear each other's changes when their pools name the same
// search_path in their configuration (a search_path set on the role or
// the database instead counts as none).
func New(ctx context.Context, pool *pgxpool.Pool, replica string, opts ...Option) (*Store, error) {
	if replica == "" {
		return nil, errors.New("pgstore: a replica name is required: pass pgstore.NewReplicaID() or a stable name per process")
	}
	if err := pgmigrate.Apply(ctx, pool, "tasks", migrations); err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	s := &Store{pool: pool, replica: replica, channel: pglisten.Channel(pool.Config().ConnConfig, channel),
		cfg: cfg, cache: newCache(cfg.cacheBytes), ownPrefix: ownPrefix(replica), batch: &batcher{pool: pool}}
	s.taken = &pglisten.Confirmations{Pool: pool, Table: listenersTable, Member: replica, Channel: s.channel,
		Logger: cfg.logger, Payload: func(to string, n uint64) string {
			b, _ := json.Marshal(notice{Origin: replica, ID: to, Kind: noticeTaken, Acked: n})
			return string(b)
		}}
	return s, nil
}

// listenersTable records each replica's listening backend (see
// pglisten.Confirmations).
const listenersTable = "sake_task_listeners"

const columns = `id, owner, tool, status, status_message, created_at, last_updated_at,
	ttl_ms, poll_ms, input_requests, result, result_is_error, error`

// Create implements tasks.Store in one statement, which announces the new
// task to the other replicas. It returns once the insert has committed,
// without waiting for the notice to come back: a replica that has not
// heard of the task yet reads it from the table, which holds it by then.
func (s *Store) Create(ctx context.Context, t *backend.Task) error {
	if t.ID == "" {
		return errors.New("pgstore: a task needs an id")
	}
	reqs, result, errJSON, err := encode(t)
	if err != nil {
		return err
	}
	tag, err := s.batch.exec(ctx, `WITH created AS (
			INSERT INTO sake_tasks (`+columns+`, expires_at, runner)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT (id) DO NOTHING RETURNING 1)
		SELECT pg_notify($16, $17) FROM created`,
		t.ID, t.Owner, t.Tool, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt,
		t.TTL.Milliseconds(), t.PollInterval.Milliseconds(), reqs, result, t.ResultIsError, errJSON,
		expiresAt(t), s.replica, s.channel, encodeNotice(s.replica, noticeCreated, t, 1, 0))
	if err != nil {
		return fmt.Errorf("pgstore: creating task: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return tasks.ErrTaskExists
	}
	s.cache.put(t, 1)
	return nil
}

// expect returns the echo a change written with ctx puts in its notice and
// waits for before it returns: a change a client asked for is answered
// once its notice came back here (pglisten.Echoes) and every other replica
// listening confirmed it took the change in (pglisten.Confirmations), so
// that the client's next request finds it wherever it goes. What a task's
// work reports (tasks.FromWork) waits for nothing: memory here holds it
// from the write itself, and the other replicas as their notice arrives.
// A write that fails calls forget instead of wait.
func (s *Store) expect(ctx context.Context) (uint64, func(context.Context)) {
	if tasks.FromWork(ctx) {
		return 0, noWait
	}
	echo, wait := s.echoes.Expect()
	p := s.taken.Expect(echo)
	if p == nil {
		return echo, wait
	}
	return echo, func(ctx context.Context) {
		wait(ctx)
		s.taken.Await(ctx, p, "task change")
	}
}

// forget drops what a write that failed or changed nothing waited for.
func (s *Store) forget(echo uint64) {
	s.echoes.Forget(echo)
	s.taken.ForgetNotice(echo)
}

// noWait is the wait of a write that waits for no echo.
func noWait(context.Context) {}

// Get implements tasks.Store: from memory when this replica knows the
// task's latest state, else from the table.
func (s *Store) Get(ctx context.Context, id string) (*backend.Task, error) {
	if t, _, gone, ok := s.cache.lookup(id); ok {
		if gone {
			return nil, backend.ErrTaskNotFound
		}
		return t, nil
	}
	mark := s.cache.mark()
	t, version, err := scanVersioned(s.pool.QueryRow(ctx, `SELECT `+columns+`, version FROM sake_tasks WHERE id = $1`, id))
	if err != nil {
		return nil, err
	}
	s.cache.fill(t, version, mark)
	return t, nil
}

// Update implements tasks.Store. When this replica knows the task's
// latest version, fn runs on it and the result is written in one
// statement on condition that the version is still that one; otherwise
// (or when the condition fails, or fn refuses what memory holds) the row
// is locked for the length of fn, so concurrent updates from every replica
// apply one after another. Either way the write announces itself.
func (s *Store) Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	if cur, version, gone, ok := s.cache.lookup(id); ok && !gone {
		owner := cur.Owner
		if fn(cur) == nil {
			cur.ID, cur.Owner = id, owner
			done, err := s.writeIf(ctx, cur, version)
			switch {
			case err != nil:
				s.cache.drop(id) // it may or may not have been written
				return nil, err
			case done:
				return cur, nil
			}
		}
		// Changed elsewhere, the notice not here yet; or fn refused what
		// memory holds, which the table decides.
	}
	return s.updateLocked(ctx, id, fn)
}

// writeIf stores t if the row is still at version, announcing the change,
// and reports whether it did.
func (s *Store) writeIf(ctx context.Context, t *backend.Task, version int64) (bool, error) {
	reqs, result, errJSON, err := encode(t)
	if err != nil {
		return false, err
	}
	echo, wait := s.expect(ctx)
	tag, err := s.batch.exec(ctx, `WITH updated AS (
			UPDATE sake_tasks SET tool = $2, status = $3, status_message = $4,
				created_at = $5, last_updated_at = $6, ttl_ms = $7, poll_ms = $8, input_requests = $9,
				result = $10, result_is_error = $11, error = $12, expires_at = $13, version = version + 1
			WHERE id = $1 AND version = $14 RETURNING 1)
		SELECT pg_notify($15, $16) FROM updated`,
		t.ID, t.Tool, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt,
		t.TTL.Milliseconds(), t.PollInterval.Milliseconds(), reqs, result, t.ResultIsError, errJSON,
		expiresAt(t), version, s.channel, encodeNotice(s.replica, noticeUpdated, t, version+1, echo))
	if err != nil || tag.RowsAffected() != 1 {
		s.forget(echo)
		if err != nil {
			return false, fmt.Errorf("pgstore: updating task: %w", err)
		}
		return false, nil
	}
	s.cache.put(t, version+1)
	wait(ctx)
	return true, nil
}

// updateLocked is Update with the row locked while fn runs.
func (s *Store) updateLocked(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	var out *backend.Task
	var version int64
	echo, wait := s.expect(ctx)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		t, v, err := scanVersioned(tx.QueryRow(ctx, `SELECT `+columns+`, version FROM sake_tasks WHERE id = $1 FOR UPDATE`, id))
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
		if _, err := tx.Exec(ctx, `WITH updated AS (
				UPDATE sake_tasks SET tool = $2, status = $3, status_message = $4,
					created_at = $5, last_updated_at = $6, ttl_ms = $7, poll_ms = $8, input_requests = $9,
					result = $10, result_is_error = $11, error = $12, expires_at = $13, version = version + 1
				WHERE id = $1 RETURNING 1)
			SELECT pg_notify($14, $15) FROM updated`,
			id, t.Tool, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt,
			t.TTL.Milliseconds(), t.PollInterval.Milliseconds(), reqs, result, t.ResultIsError, errJSON,
			expiresAt(t), s.channel, encodeNotice(s.replica, noticeUpdated, t, v+1, echo)); err != nil {
			return fmt.Errorf("pgstore: updating task: %w", err)
		}
		out, version = t, v+1
		return nil
	})
	if err != nil {
		s.forget(echo)
		if !errors.Is(err, backend.ErrTaskNotFound) {
			s.cache.drop(id)
		}
		return nil, err
	}
	s.cache.put(out, version)
	wait(ctx)
	return out, nil
}

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	echo, wait := s.echoes.Expect()
	tag, err := s.pool.Exec(ctx, `WITH deleted AS (DELETE FROM sake_tasks WHERE id = $1 RETURNING 1)
		SELECT pg_notify($2, $3) FROM deleted`, id, s.channel, bareNotice(s.replica, id, noticeDeleted, echo))
	if err != nil || tag.RowsAffected() == 0 {
		s.echoes.Forget(echo)
		if err != nil {
			s.cache.drop(id)
			return fmt.Errorf("pgstore: deleting task: %w", err)
		}
		return backend.ErrTaskNotFound
	}
	s.cache.gone(id)
	wait(ctx)
	return nil
}

// List implements tasks.Store: newest first, ties in insertion order
// reversed, after a task of owner's.
func (s *Store) List(ctx context.Context, owner string, after string, limit int) ([]*backend.Task, error) {
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
				return nil, backend.ErrTaskNotFound
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
	var out []*backend.Task
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
func expiresAt(t *backend.Task) any {
	if t.TTL <= 0 {
		return nil
	}
	return t.CreatedAt.Add(t.TTL)
}

// encode turns the JSON-bearing fields of t into column values (nil for
// absent ones).
func encode(t *backend.Task) (reqs, result, errJSON []byte, err error) {
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

// scanVersioned reads one task and its version, or backend.ErrTaskNotFound.
func scanVersioned(row pgx.Row) (*backend.Task, int64, error) {
	var version int64
	t, err := scanInto(row, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, backend.ErrTaskNotFound
	}
	return t, version, err
}

// scan reads the columns of one task.
func scan(row pgx.Row) (*backend.Task, error) { return scanInto(row) }

// scanInto reads the columns of one task, then extra columns into extra.
func scanInto(row pgx.Row, extra ...any) (*backend.Task, error) {
	var t backend.Task
	var ttl, poll int64
	var reqs, result, errJSON []byte
	dest := append([]any{&t.ID, &t.Owner, &t.Tool, &t.Status, &t.StatusMessage, &t.CreatedAt, &t.LastUpdatedAt,
		&ttl, &poll, &reqs, &result, &t.ResultIsError, &errJSON}, extra...)
	if err := row.Scan(dest...); err != nil {
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
