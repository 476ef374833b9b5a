package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
	"github.com/sakemcp/sake-go/sake/tasks/taskstest"
)

// The contract holds for a store that listens, so answers from memory.
func TestStoreContractListening(t *testing.T) {
	pgtest.URL(t)
	t.Parallel()
	taskstest.StoreContract(t, func(t *testing.T) tasks.Store {
		_, _, pool := pgtest.Schema(t)
		s, err := pgstore.New(context.Background(), pool, "r1")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Listen(func(string) {}))
		return s
	})
}

// statements counts the statements a pool sends, leaving out the
// heartbeat and LISTEN.
type statements struct {
	mu  sync.Mutex
	sql []string
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "sake_task_replicas") || strings.HasPrefix(d.SQL, "LISTEN") {
		return ctx
	}
	s.mu.Lock()
	s.sql = append(s.sql, strings.Join(strings.Fields(d.SQL), " "))
	s.mu.Unlock()
	return ctx
}

func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// take returns the statements counted since the last call.
func (s *statements) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.sql
	s.sql = nil
	return out
}

// tracedStore is a store named replica on schema whose statements count
// in st, its pool reaching the database at addr when it is not "".
func tracedStore(t *testing.T, dbURL, schema, replica, addr string, st *statements, opts ...pgstore.Option) *pgstore.Store {
	t.Helper()
	if addr != "" {
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = addr
		dbURL = u.String()
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.RuntimeParams["application_name"] = pgtest.AppName(schema)
	cfg.ConnConfig.Tracer = st
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, err := pgstore.New(context.Background(), pool, replica, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// heardBy returns a channel of the notices s takes in from the others.
func heardBy(s *pgstore.Store) <-chan string {
	ch := make(chan string, 64)
	pgstore.OnHeard(s, func(id, kind string) {
		select {
		case ch <- kind + " " + id:
		default:
		}
	})
	return ch
}

// waitNotice waits until a notice of kind about id has been taken in.
func waitNotice(ch <-chan string, kind, id string) {
	for n := range ch {
		if n == kind+" "+id {
			return
		}
	}
}

// A task's life costs its creation and one statement per change on the
// replica that runs it, and nothing on the replica that heard of it
// through the feed: polls, the wait for its end and its result are
// answered from memory.
func TestTaskLifeStatements(t *testing.T) {
	t.Parallel()
	dbURL, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	var onA, onB statements
	a := tracedStore(t, dbURL, schema, "A", "", &onA)
	b := tracedStore(t, dbURL, schema, "B", "", &onB)
	heard := heardBy(b)
	ma, mb := tasks.New(tasks.WithStore(a)), tasks.New(tasks.WithStore(b))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = ma.Shutdown(sctx)
		_ = mb.Shutdown(sctx)
	})
	onA.take()
	onB.take()

	task, ctl, err := ma.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	waitNotice(heard, "c", task.ID)
	for range 3 {
		for _, m := range []*tasks.Manager{ma, mb} {
			if got, err := m.Get(ctx, "sub:alice", task.ID); err != nil || got.Status != sake.TaskWorking {
				t.Fatalf("poll: %+v, %v", got, err)
			}
		}
	}
	// Another owner finds nothing, from memory as well.
	if _, err := mb.Get(ctx, "sub:bob", task.ID); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Fatalf("bob's poll: %v", err)
	}
	if err := ctl.Progress("half way"); err != nil {
		t.Fatal(err)
	}
	waitNotice(heard, "u", task.ID)
	if got, err := mb.Get(ctx, "sub:alice", task.ID); err != nil || got.StatusMessage != "half way" {
		t.Fatalf("B after the progress: %+v, %v", got, err)
	}
	ctl.Complete(json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`), false)
	got, err := mb.Wait(ctx, "sub:alice", task.ID, nil)
	if err != nil || got.Status != sake.TaskCompleted || !strings.Contains(string(got.Result), "done") {
		t.Fatalf("B's wait: %+v, %v", got, err)
	}
	if got, err := ma.Get(ctx, "sub:alice", task.ID); err != nil || got.Status != sake.TaskCompleted {
		t.Fatalf("A after the end: %+v, %v", got, err)
	}
	if s := onA.take(); len(s) != 3 {
		t.Errorf("A ran %d statements, want 3 (create, progress, complete):\n%s", len(s), strings.Join(s, "\n"))
	}
	if s := onB.take(); len(s) != 0 {
		t.Errorf("B ran %d statements, want none:\n%s", len(s), strings.Join(s, "\n"))
	}
	// A change the memory does not yet know of is written under the
	// row's lock and holds: B cancels a task it learns of from the table.
	task2, _, err := ma.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := mb.Cancel(ctx, "sub:alice", task2.ID); err != nil || got.Status != sake.TaskCancelled {
		t.Fatalf("B's cancel: %+v, %v", got, err)
	}
	if got, err := ma.Wait(ctx, "sub:alice", task2.ID, nil); err != nil || got.Status != sake.TaskCancelled {
		t.Fatalf("A after B's cancel: %+v, %v", got, err)
	}
}

// A store whose LISTEN connection is lost answers nothing from memory
// until it listens again: a change made meanwhile on another replica,
// whose notice it never got, is read from the table.
func TestLostListenForgetsMemory(t *testing.T) {
	t.Parallel()
	dbURL, schema, _ := pgtest.Schema(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	db := newCutProxy(t, u.Host)
	ctx := context.Background()
	var onA, onB statements
	a := tracedStore(t, dbURL, schema, "A", "", &onA)
	tap := make(logTap, 64)
	b := tracedStore(t, dbURL, schema, "B", db.ln.Addr().String(), &onB, pgstore.Logger(slog.New(tap)))
	heard := heardBy(b)
	ma, mb := tasks.New(tasks.WithStore(a)), tasks.New(tasks.WithStore(b))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = ma.Shutdown(sctx)
		_ = mb.Shutdown(sctx)
	})

	task, ctl, err := ma.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	waitNotice(heard, "c", task.ID)
	onB.take()
	if got, err := mb.Get(ctx, "sub:alice", task.ID); err != nil || got.Status != sake.TaskWorking {
		t.Fatalf("B before the cut: %+v, %v", got, err)
	}
	if s := onB.take(); len(s) != 0 || b.Cached() == 0 {
		t.Fatalf("B read the table for a task it knew (%d statements, %d cached)", len(s), b.Cached())
	}

	db.cut()
	for msg := range tap {
		if strings.Contains(msg, "listening on PostgreSQL failed") {
			break
		}
	}
	if n := b.Cached(); n != 0 {
		t.Fatalf("B keeps %d tasks in memory after losing its LISTEN", n)
	}
	if err := ctl.Progress("changed while B was cut off"); err != nil {
		t.Fatal(err)
	}
	// Not from memory: the table cannot be reached, so B cannot say.
	if got, err := mb.Get(ctx, "sub:alice", task.ID); err == nil {
		t.Fatalf("B answered %+v while it could reach neither its feed nor the table", got)
	}
	db.restore()
	got, err := mb.Get(ctx, "sub:alice", task.ID)
	if err != nil || got.StatusMessage != "changed while B was cut off" {
		t.Fatalf("B after the cut: %+v, %v", got, err)
	}
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)
}
