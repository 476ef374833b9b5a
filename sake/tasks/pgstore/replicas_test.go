package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// replicas starts n managers, each on a store of its own (its own pool and
// replica name) over one schema: n server processes on one database.
func replicas(t *testing.T, n int) ([]*tasks.Manager, []*pgstore.Store, string) {
	t.Helper()
	url, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	var ms []*tasks.Manager
	var ss []*pgstore.Store
	for i := range n {
		s, err := pgstore.New(ctx, pgtest.Pool(t, url, schema), string(rune('A'+i)))
		if err != nil {
			t.Fatal(err)
		}
		m := tasks.New(tasks.WithStore(s))
		t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
		ms = append(ms, m)
		ss = append(ss, s)
	}
	return ms, ss, schema
}

func TestTaskAcrossReplicas(t *testing.T) {
	t.Parallel()
	ms, _, _ := replicas(t, 3)
	a, b, c := ms[0], ms[1], ms[2]
	ctx := context.Background()

	task, ctl, err := a.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "deploy"})
	if err != nil {
		t.Fatal(err)
	}
	// The work on A asks a question; the answer is given through B.
	answered := make(chan map[string]json.RawMessage, 1)
	go func() {
		got, err := ctl.NeedInput(map[string]json.RawMessage{"confirm": json.RawMessage(`{"method":"elicitation/create"}`)})
		if err != nil {
			t.Error(err)
		}
		answered <- got
	}()
	if _, err := b.Wait(ctx, "sub:alice", task.ID, func(t *backend.Task) bool { return t.Status == sake.TaskInputRequired }); err != nil {
		t.Fatal(err)
	}
	// Another subject cannot answer, on any replica.
	if err := b.Answer(ctx, "sub:bob", task.ID, map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept"}`)}); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Fatalf("bob answered alice's task: %v", err)
	}
	if err := b.Answer(ctx, "sub:alice", task.ID, map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept"}`)}); err != nil {
		t.Fatal(err)
	}
	if got := <-answered; string(got["confirm"]) != `{"action":"accept"}` {
		t.Fatalf("the work on A got %s", got)
	}

	// Cancelled through C: the work's context on A ends, waiters on B wake.
	if _, err := c.Cancel(ctx, "sub:bob", task.ID); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Fatalf("bob cancelled alice's task: %v", err)
	}
	if _, err := c.Cancel(ctx, "sub:alice", task.ID); err != nil {
		t.Fatal(err)
	}
	<-ctl.Context().Done()
	if cause := context.Cause(ctl.Context()); cause == nil || cause.Error() != "tasks: task cancelled by the client" {
		t.Errorf("cause on A: %v", cause)
	}
	done, err := b.Wait(ctx, "sub:alice", task.ID, nil)
	if err != nil || done.Status != sake.TaskCancelled {
		t.Fatalf("B sees %+v, %v", done, err)
	}
}

func TestWaitersWakeOnAnotherReplica(t *testing.T) {
	t.Parallel()
	ms, _, _ := replicas(t, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	task, ctl, err := a.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan *backend.Task, 8)
	stop := b.Subscribe("sub:alice", func(t *backend.Task) { seen <- t })
	defer stop()
	waited := make(chan *backend.Task, 1)
	go func() {
		got, err := b.Wait(ctx, "sub:alice", task.ID, nil)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	ctl.Progress("half way")
	if got := <-seen; got.StatusMessage != "half way" {
		t.Errorf("subscriber on B saw %+v", got)
	}
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)
	got := <-waited
	if got == nil || got.Status != sake.TaskCompleted || string(got.Result) != `{"content":[]}` {
		t.Fatalf("B's waiter got %+v", got)
	}
}

func TestStoppedReplicaTasksFail(t *testing.T) {
	t.Parallel()
	ms, ss, _ := replicas(t, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	task, ctl, err := a.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	// A live replica's tasks are left alone.
	if n, err := ss[1].SweepOrphans(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("sweep with A alive: %d, %v", n, err)
	}
	// A stops heartbeating: pretend its last heartbeat was long ago.
	if err := ss[1].AgeHeartbeat(ctx, "A", 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if n, err := ss[1].SweepOrphans(ctx, time.Hour); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	got, err := b.Wait(ctx, "sub:alice", task.ID, nil)
	if err != nil || got.Status != sake.TaskFailed || got.Error == nil || got.Error.Code != sake.CodeInternalError {
		t.Fatalf("B sees %+v, %v", got, err)
	}
	// Had A's work survived, it finds its task finished and stops.
	<-ctl.Context().Done()
	if n, err := ss[1].SweepOrphans(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("second sweep: %d, %v", n, err)
	}
}

// logTap is a slog handler that sends each message to a channel.
type logTap chan string

func (l logTap) Enabled(context.Context, slog.Level) bool { return true }
func (l logTap) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default:
	}
	return nil
}
func (l logTap) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logTap) WithGroup(string) slog.Handler      { return l }

func TestListenReconnects(t *testing.T) {
	url, schema, admin := pgtest.Schema(t)
	ctx := context.Background()
	a, err := pgstore.New(ctx, pgtest.Pool(t, url, schema), "A")
	if err != nil {
		t.Fatal(err)
	}
	tap := make(logTap, 64)
	b, err := pgstore.New(ctx, pgtest.Pool(t, url, schema), "B", pgstore.Logger(slog.New(tap)))
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := tasks.New(tasks.WithStore(a)), tasks.New(tasks.WithStore(b))
	t.Cleanup(func() { _ = ma.Shutdown(ctx); _ = mb.Shutdown(ctx) })

	task, ctl, err := ma.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan *backend.Task, 1)
	go func() {
		got, err := mb.Wait(ctx, "sub:alice", task.ID, nil)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	// End every LISTEN connection of this test's replicas.
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN%'`, pgtest.AppName(schema)); err != nil {
		t.Fatal(err)
	}
	for msg := range tap {
		if strings.Contains(msg, "listening on PostgreSQL failed") {
			break
		}
	}
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)
	if got := <-waited; got == nil || got.Status != sake.TaskCompleted {
		t.Fatalf("B's waiter got %+v", got)
	}
}

// A replica judges the others only once it has itself been beating for
// DeadAfter: back from an outage (or just started), it does not fail the
// tasks of replicas that missed their beats in the same outage.
func TestSweepWaitsForOwnSteadyBeat(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	sa, err := pgstore.New(ctx, pool, "A")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := pgstore.New(ctx, pool, "B")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	task := &backend.Task{ID: "t1", Owner: "sub:alice", Status: sake.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: time.Hour}
	if err := sa.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	sa.HeartbeatNow(ctx)
	sb.HeartbeatNow(ctx)
	// Both were cut off for two hours: their last beats are that old.
	for _, r := range []string{"A", "B"} {
		if err := sa.AgeHeartbeat(ctx, r, 2*time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := sa.AgeBeating(ctx, r, 3*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	working := func(when string) {
		t.Helper()
		got, err := sb.Get(ctx, task.ID)
		if err != nil || got.Status != sake.TaskWorking {
			t.Fatalf("%s: %+v, %v", when, got, err)
		}
	}
	// B comes back first: A may be on its way back too.
	sb.HeartbeatNow(ctx)
	working("B's first beat after the outage")
	sb.HeartbeatNow(ctx)
	working("B's second beat")
	// B has beaten for DeadAfter and A still has not: A is stopped.
	if err := sb.AgeBeating(ctx, "B", 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	sb.HeartbeatNow(ctx)
	got, err := sb.Get(ctx, task.ID)
	if err != nil || got.Status != sake.TaskFailed {
		t.Fatalf("once B has beaten for DeadAfter: %+v, %v", got, err)
	}
}

// Many tasks created and finished at once, their writes batched together,
// each end as written, on the replica that ran them and on another.
func TestConcurrentTasksAcrossReplicas(t *testing.T) {
	t.Parallel()
	ms, _, _ := replicas(t, 2)
	a, b := ms[0], ms[1]
	ctx := context.Background()
	const n = 48
	errs := make(chan error, n)
	for i := range n {
		go func() {
			owner := fmt.Sprint("sub:", i) // within the limit per owner
			task, ctl, err := a.Create(ctx, owner, backend.TaskOptions{Tool: "t"})
			if err != nil {
				errs <- err
				return
			}
			want := fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, i)
			ctl.Complete(json.RawMessage(want), false)
			for _, m := range []*tasks.Manager{a, b} {
				got, err := m.Wait(ctx, owner, task.ID, nil)
				if err != nil || got.Status != sake.TaskCompleted || string(got.Result) != want {
					errs <- fmt.Errorf("task %d: %+v, %v", i, got, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
