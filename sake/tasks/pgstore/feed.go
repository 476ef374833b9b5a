package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pglisten"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// channel is the LISTEN/NOTIFY channel of task changes.
const channel = "sake_tasks"

// Defaults of the change feed.
const (
	// DefaultHeartbeat is how often a listening replica records that it
	// is alive and looks for tasks whose replica is not.
	DefaultHeartbeat = 10 * time.Second
	// DefaultDeadAfter is how long a replica may go without a heartbeat
	// before the tasks it was running are failed.
	DefaultDeadAfter = time.Minute
)

// orphanMessage is the status message of a task whose replica stopped.
const orphanMessage = "the server replica running this task stopped"

var _ tasks.Feed = (*Store)(nil)

// NewReplicaID returns a random name for this process among the replicas.
func NewReplicaID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Publish implements tasks.Feed. A change this Store wrote was announced
// by the statement that wrote it, so without answers Publish sends
// nothing; answers are stored for the replica that runs the task and
// announced, in one statement.
func (s *Store) Publish(ctx context.Context, id string, answers map[string]json.RawMessage) error {
	if len(answers) == 0 {
		return nil
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return fmt.Errorf("pgstore: encoding answers: %w", err)
	}
	echo, wait := s.echoes.Expect()
	tag, err := s.pool.Exec(ctx, `WITH stored AS (
			INSERT INTO sake_task_answers (task_id, answers) SELECT id, $2 FROM sake_tasks WHERE id = $1 RETURNING 1)
		SELECT pg_notify($3, $4) FROM stored`, id, b, s.channel, bareNotice(s.replica, id, noticeAnswers, echo))
	if err != nil || tag.RowsAffected() == 0 {
		s.echoes.Forget(echo)
		if err != nil {
			return fmt.Errorf("pgstore: storing answers: %w", err)
		}
		return nil
	}
	wait(ctx)
	return nil
}

// TakeAnswers implements tasks.Feed.
func (s *Store) TakeAnswers(ctx context.Context, id string) (map[string]json.RawMessage, error) {
	rows, err := s.pool.Query(ctx, `DELETE FROM sake_task_answers WHERE task_id = $1 RETURNING seq, answers`, id)
	if err != nil {
		return nil, fmt.Errorf("pgstore: taking answers: %w", err)
	}
	type batch struct {
		seq     int64
		answers []byte
	}
	batches, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (batch, error) {
		var b batch
		err := r.Scan(&b.seq, &b.answers)
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: taking answers: %w", err)
	}
	var out map[string]json.RawMessage
	for _, b := range batches {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b.answers, &m); err != nil {
			return nil, fmt.Errorf("pgstore: decoding answers: %w", err)
		}
		if out == nil {
			out = make(map[string]json.RawMessage, len(m))
		}
		maps.Copy(out, m)
	}
	return out, nil
}

// Listen implements tasks.Feed on a connection that LISTENs to the other
// replicas' changes (one per process and database, user and search_path,
// shared with the other listeners there), while another goroutine records this
// replica's heartbeat and fails the tasks of replicas that stopped
// (SweepOrphans). While it listens the Store keeps tasks in memory (see
// Store). A lost connection empties that memory and is opened again with
// a bounded backoff; fn then gets "" so the manager re-reads what it
// holds, and the log says so.
func (s *Store) Listen(fn func(id string)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stopListen := pglisten.Start(pglisten.Config{
		Conn:    s.pool.Config().ConnConfig,
		Channel: s.channel,
		Logger:  s.cfg.logger,
		OnListen: func(ctx context.Context, gap bool) {
			// Registered first: the others' changes wait for this
			// replica from then on, so it may trust its memory.
			// Unregistered, it reads every task from the table.
			err := s.taken.Register(ctx)
			if err != nil {
				s.cfg.logger.Warn("pgstore: this replica could not register as listening: it reads every task from the database until it listens again",
					"error", err)
			}
			s.cache.reset(err == nil)
			s.echoes.On()
			s.heartbeat(ctx)
			if gap {
				fn("")
			}
		},
		OnLost: func() {
			s.cache.reset(false)
			s.echoes.Off()
		},
		Notify: func(payload string) {
			if id := s.heard(payload); id != "" {
				fn(id)
			}
		},
	})
	beating := make(chan struct{})
	go func() {
		defer close(beating)
		s.beat(ctx)
	}()
	confirming := make(chan struct{})
	go func() {
		defer close(confirming)
		s.taken.Send(ctx)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			stopListen()
			s.cache.reset(false)
			s.echoes.Off()
			cancel()
			<-beating
			<-confirming
			s.taken.Unregister()
		})
	}
}

// heard takes in a notice from the feed and returns the id of the task
// whose change the manager must hear of, or "" (a creation, this
// replica's own notice, a payload it cannot read).
func (s *Store) heard(payload string) string {
	if echo, ok := ownEcho(payload, s.ownPrefix); ok {
		s.echoes.Heard(echo)
		return ""
	}
	var n notice
	if json.Unmarshal([]byte(payload), &n) != nil || n.ID == "" {
		return ""
	}
	if n.Origin == s.replica {
		s.echoes.Heard(n.Echo)
		return ""
	}
	if n.Kind == noticeTaken {
		if n.ID == s.replica {
			s.taken.Heard(n.Acked, n.Origin)
		}
		return ""
	}
	if hook := s.heardHook; hook != nil {
		defer hook(n.ID, n.Kind)
	}
	switch n.Kind {
	case noticeCreated, noticeUpdated:
		if t := n.task(); t != nil {
			s.cache.put(t, n.Version)
		} else {
			s.cache.stale(n.ID, n.Version)
		}
		s.taken.Confirm(n.Origin, n.Echo) // memory here holds the change
		if n.Kind == noticeCreated {
			return "" // creation is not a change: nobody waits for it yet
		}
	case noticeDeleted:
		s.cache.gone(n.ID)
	case noticeAnswers:
	default:
		return ""
	}
	return n.ID
}

// beat records the heartbeat every Heartbeat until ctx ends.
func (s *Store) beat(ctx context.Context) {
	tick := time.NewTicker(s.cfg.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.heartbeat(ctx)
		}
	}
}

// heartbeat records that this replica is alive and, once it has been
// beating without a gap for DeadAfter, fails the tasks of replicas that
// are not. A replica that missed beats itself (an outage, a start) waits:
// the others may have missed theirs for the same reason and be on their
// way back, with their tasks' work still running.
func (s *Store) heartbeat(ctx context.Context) {
	var steady bool
	if err := s.pool.QueryRow(ctx, `INSERT INTO sake_task_replicas AS r (id, seen_at, beating_since)
		VALUES ($1, now(), now())
		ON CONFLICT (id) DO UPDATE SET seen_at = now(),
			beating_since = CASE WHEN r.seen_at < now() - make_interval(secs => $2) THEN now() ELSE r.beating_since END
		RETURNING beating_since <= now() - make_interval(secs => $3)`,
		s.replica, 2*s.cfg.heartbeat.Seconds(), s.cfg.deadAfter.Seconds()).Scan(&steady); err != nil {
		if ctx.Err() == nil {
			s.cfg.logger.Error("pgstore: recording this replica's heartbeat", "error", err)
		}
		return
	}
	if !steady {
		return
	}
	if _, err := s.SweepOrphans(ctx, s.cfg.deadAfter); err != nil && ctx.Err() == nil {
		s.cfg.logger.Error("pgstore: failing the tasks of stopped replicas", "error", err)
	}
}

// SweepOrphans fails the unfinished tasks of every other replica whose last
// heartbeat is older than deadAfter, announces each change, forgets those
// replicas, and returns how many tasks it failed. The listening goroutine
// calls it with DeadAfter at every heartbeat once this replica has beaten
// without a gap for DeadAfter; several replicas sweeping at
// once fail each task once. A task's work that is in fact still running
// (a replica cut off from the database, not stopped) finds its task
// terminal at its next report and stops.
func (s *Store) SweepOrphans(ctx context.Context, deadAfter time.Duration) (int, error) {
	errJSON, _ := json.Marshal(&sake.Error{Code: sake.CodeInternalError, Message: orphanMessage})
	var ids []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `WITH dead AS (
				DELETE FROM sake_task_replicas
				WHERE id <> $1 AND seen_at < now() - make_interval(secs => $2)
				RETURNING id)
			UPDATE sake_tasks SET status = $3, status_message = $4, error = $5,
				input_requests = NULL, last_updated_at = date_trunc('milliseconds', now()), version = version + 1
			WHERE runner IN (SELECT id FROM dead) AND status NOT IN ($3, $6, $7)
			RETURNING id, version`,
			s.replica, deadAfter.Seconds(), sake.TaskFailed, orphanMessage, errJSON,
			sake.TaskCompleted, sake.TaskCancelled)
		if err != nil {
			return err
		}
		type failed struct {
			id      string
			version int64
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (failed, error) {
			var f failed
			err := r.Scan(&f.id, &f.version)
			return f, err
		})
		if err != nil {
			return err
		}
		ids = ids[:0]
		for _, f := range got {
			// Announced without the task: whoever needs it reads it.
			b, _ := json.Marshal(notice{ID: f.id, Kind: noticeUpdated, Version: f.version})
			if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, s.channel, string(b)); err != nil {
				return err
			}
			ids = append(ids, f.id)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("pgstore: sweeping orphaned tasks: %w", err)
	}
	if len(ids) > 0 {
		s.cfg.logger.Warn("pgstore: failed the tasks of a stopped replica", "tasks", len(ids))
	}
	return len(ids), nil
}
