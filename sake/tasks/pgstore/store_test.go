package pgstore_test

import (
	"context"
	"testing"

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
