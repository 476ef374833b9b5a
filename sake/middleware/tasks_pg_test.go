package middleware_test

import (
	"context"
	"testing"

	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// On replicas sharing tasks through PostgreSQL, a task started on one and
// read on the other answers its masked and capped result: what is stored
// is shaped. Needs SAKE_POSTGRES_URL (scripts/postgres.sh).
func TestResultMiddlewareShapesTasksOnReplicas(t *testing.T) {
	pgtest.URL(t)
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		url, schema, _ := pgtest.Schema(t)
		var clients [2]*saketest.Client
		for i := range clients {
			s, err := pgstore.New(context.Background(), pgtest.Pool(t, url, schema), string(rune('A'+i)))
			if err != nil {
				t.Fatal(err)
			}
			m := tasks.New(tasks.WithStore(s))
			t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
			clients[i] = saketest.Connect(t, shapedJobs(t, m, middleware.ResultCap{MaxBytes: 1000}), as(opts, "alice")...)
		}
		checkShapedTasks(t, clients[0], clients[1], len(opts) > 0)
	})
}
