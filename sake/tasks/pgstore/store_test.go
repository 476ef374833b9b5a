package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
	"github.com/sakemcp/sake-go/sake/tasks/taskstest"
)

func TestStoreContract(t *testing.T) {
	pgtest.URL(t)
	t.Parallel()
	taskstest.StoreContract(t, func(t *testing.T) tasks.Store {
		_, _, pool := pgtest.Schema(t)
		s, err := pgstore.New(context.Background(), pool, "r1")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestMigrationsIdempotent(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	for range 2 {
		if _, err := pgstore.New(ctx, pool, "r1"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pgstore.New(ctx, pool, ""); err == nil {
		t.Error("an empty replica name was accepted")
	}
}

// A status message PostgreSQL's text cannot hold is refused before the
// store sees it, as with the memory store; a failure's message is mended
// and the failed task stored.
func TestStatusMessageThatTextCannotHold(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s, err := pgstore.New(ctx, pool, "r1")
	if err != nil {
		t.Fatal(err)
	}
	m := tasks.New(tasks.WithStore(s))
	defer m.Shutdown(ctx)
	task, ctl, err := m.Create(ctx, "sub:alice", backend.TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rpc *sake.Error
	if err := ctl.Progress("nul\x00"); !errors.As(err, &rpc) || rpc.Code != sake.CodeInvalidParams {
		t.Errorf("Progress with a NUL: %v", err)
	}
	ctl.Fail(&sake.Error{Code: -32001, Message: "bad \xff"})
	got, err := s.Get(ctx, task.ID)
	if err != nil || got.Status != sake.TaskFailed || got.StatusMessage != "bad \uFFFD" || m.Unstored() != 0 {
		t.Fatalf("stored: %+v, %v (unstored %d)", got, err, m.Unstored())
	}
}
