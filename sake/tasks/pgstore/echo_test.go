package pgstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pglisten"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// A change a client asked for (a cancellation) is answered once its own
// notice has come back, so its notice carries the number the writer
// waits for; the creation and what the work reports (its progress, its
// end) wait for nothing and carry none.
func TestOnlyClientChangesWaitForTheirNotice(t *testing.T) {
	t.Parallel()
	url, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	pool := pgtest.Pool(t, url, schema)
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx) //nolint:errcheck // a test's listening connection
	s, err := pgstore.New(ctx, pool, "A")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{pglisten.Channel(pool.Config().ConnConfig, "sake_tasks")}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	m := tasks.New(tasks.WithStore(s))
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = m.Shutdown(sctx)
	})

	// next returns the kind of the next notice about id and whether it
	// carries an echo.
	next := func(id string) (kind string, echo bool) {
		t.Helper()
		for {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			n, err := conn.WaitForNotification(wctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				ID   string `json:"i"`
				Kind string `json:"k"`
				Echo uint64 `json:"n"`
			}
			if json.Unmarshal([]byte(n.Payload), &p) == nil && p.ID == id {
				return p.Kind, p.Echo != 0
			}
		}
	}
	task, ctl, err := m.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if kind, echo := next(task.ID); kind != "c" || echo {
		t.Errorf("creation: notice %q with echo %v, want c without", kind, echo)
	}
	if err := ctl.Progress("half way"); err != nil {
		t.Fatal(err)
	}
	if kind, echo := next(task.ID); kind != "u" || echo {
		t.Errorf("progress: notice %q with echo %v, want u without", kind, echo)
	}
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)
	if kind, echo := next(task.ID); kind != "u" || echo {
		t.Errorf("end: notice %q with echo %v, want u without", kind, echo)
	}
	if got, err := m.Get(ctx, "sub:alice", task.ID); err != nil || got.Status != sake.TaskCompleted {
		t.Fatalf("after the end: %+v, %v", got, err)
	}

	other, _, err := m.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	next(other.ID)
	if got, err := m.Cancel(ctx, "sub:alice", other.ID); err != nil || got.Status != sake.TaskCancelled {
		t.Fatalf("cancel: %+v, %v", got, err)
	}
	if kind, echo := next(other.ID); kind != "u" || !echo {
		t.Errorf("cancellation: notice %q with echo %v, want u with one", kind, echo)
	}
	// Cancelling it again changes nothing and announces nothing.
	if got, err := m.Cancel(ctx, "sub:alice", other.ID); err != nil || got.Status != sake.TaskCancelled {
		t.Fatalf("second cancel: %+v, %v", got, err)
	}
	third, ctl3, err := m.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl3.Complete(json.RawMessage(`{"content":[]}`), false)
	if kind, _ := next(third.ID); kind != "c" {
		t.Errorf("after a cancellation that changed nothing: notice %q, want the next creation", kind)
	}
}
