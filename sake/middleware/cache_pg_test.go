package middleware_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/pgbroker"
)

// Two replicas on one PostgreSQL, through sake/pgbroker, drop each other's
// stale results. Needs SAKE_POSTGRES_URL (scripts/postgres.sh).
func TestCacheReplicasOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	var markers atomic.Int64
	testReplicasInvalidate(t, func(t *testing.T, lib *library) replicaPair {
		_, schema, _ := pgtest.Schema(t)
		var srvs [2]*sake.Server
		for i := range srvs {
			b := pgbroker.New(pgtest.Pool(t, url, schema), fmt.Sprint("r", i), nil)
			srvs[i] = cachedLibrary(t, lib, middleware.Cache{}, sake.Broker(b))
			s := srvs[i]
			t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		}
		// NOTIFYs from one replica arrive in order and one at a time, so
		// once a marker published after a change has reached the other
		// replica's watchers, the change has reached its cache.
		settle := func(t *testing.T, from, to *sake.Server) {
			t.Helper()
			uri := fmt.Sprintf("marker://%d", markers.Add(1))
			seen := make(chan struct{})
			var once atomic.Bool
			stop := to.Watch(func(b sake.Broadcast) {
				if b.URI == uri && once.CompareAndSwap(false, true) {
					close(seen)
				}
			})
			defer stop()
			from.ResourceUpdated(uri)
			select {
			case <-seen:
			case <-time.After(30 * time.Second):
				t.Fatal("the marker did not reach the other replica")
			}
		}
		return replicaPair{a: srvs[0], b: srvs[1], settle: settle}
	})
}
