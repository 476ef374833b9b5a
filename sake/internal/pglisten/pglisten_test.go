package pglisten

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// recorder is a subscriber that records what it hears, in order.
type recorder struct{ events chan string }

func newRecorder() *recorder { return &recorder{events: make(chan string, 64)} }

func (r *recorder) config(pool *pgxpool.Pool, channel string) Config {
	return Config{
		Conn: pool.Config().ConnConfig, Channel: channel, Logger: slog.New(slog.DiscardHandler),
		OnListen: func(_ context.Context, gap bool) { r.events <- fmt.Sprintf("listen gap=%v", gap) },
		OnLost:   func() { r.events <- "lost" },
		Notify:   func(payload string) { r.events <- "heard " + payload },
	}
}

// want reads r's next event, which must be e.
func (r *recorder) want(t *testing.T, who, e string) {
	t.Helper()
	select {
	case got := <-r.events:
		if got != e {
			t.Fatalf("%s: %q, want %q", who, got, e)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: nothing, want %q", who, e)
	}
}

// none checks that r has heard nothing more.
func (r *recorder) none(t *testing.T, who string) {
	t.Helper()
	select {
	case got := <-r.events:
		t.Fatalf("%s: %q, want nothing", who, got)
	default:
	}
}

func notify(t *testing.T, pool *pgxpool.Pool, channel, payload string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `SELECT pg_notify($1, $2)`, channel, payload); err != nil {
		t.Fatal(err)
	}
}

// listeners counts the LISTEN connections of schema's pools.
func listeners(t *testing.T, pool *pgxpool.Pool, schema string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN%'`, pgtest.AppName(schema)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Subscribers with one connection identity share one connection: one
// that joins late listens at once without a gap, each hears its own
// channel (two on one channel both hear it), a lost connection is
// reported to all and each listens again with a gap, and one that leaves
// stops hearing while the others go on.
func TestSharedConnection(t *testing.T) {
	_, schema, pool := pgtest.Schema(t)
	a, b, c := newRecorder(), newRecorder(), newRecorder()

	stopA := Start(a.config(pool, "ch_a"))
	defer stopA()
	a.want(t, "a", "listen gap=false")
	notify(t, pool, "ch_a", "1")
	a.want(t, "a", "heard 1")

	stopB := Start(b.config(pool, "ch_b"))
	defer stopB()
	b.want(t, "b", "listen gap=false")
	stopC := Start(c.config(pool, "ch_a"))
	defer stopC()
	c.want(t, "c", "listen gap=false")
	if n := listeners(t, pool, schema); n != 1 {
		t.Fatalf("%d LISTEN connections, want 1", n)
	}
	notify(t, pool, "ch_b", "2")
	notify(t, pool, "ch_a", "3")
	b.want(t, "b", "heard 2")
	a.want(t, "a", "heard 3")
	c.want(t, "c", "heard 3")
	a.none(t, "a")
	c.none(t, "c")

	if _, err := pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN%'`, pgtest.AppName(schema)); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name string
		r    *recorder
	}{{"a", a}, {"b", b}, {"c", c}} {
		r.r.want(t, r.name, "lost")
		r.r.want(t, r.name, "listen gap=true")
	}
	notify(t, pool, "ch_b", "4")
	notify(t, pool, "ch_a", "5")
	b.want(t, "b", "heard 4")
	a.want(t, "a", "heard 5")
	c.want(t, "c", "heard 5")

	// b and c leave; a goes on hearing, and nothing reaches them.
	stopB()
	stopC()
	notify(t, pool, "ch_b", "6")
	notify(t, pool, "ch_a", "7")
	a.want(t, "a", "heard 7")
	b.none(t, "b")
	c.none(t, "c")
	stopA()
	a.none(t, "a")

	// Once all have left, the next Start opens a connection of its own.
	d := newRecorder()
	stopD := Start(d.config(pool, "ch_a"))
	defer stopD()
	d.want(t, "d", "listen gap=false")
	notify(t, pool, "ch_a", "8")
	d.want(t, "d", "heard 8")
	a.none(t, "a")
}

// Subscribers of two schemas (two search_paths) do not share a
// connection.
func TestIdentitiesDoNotShare(t *testing.T) {
	url, schema1, pool1 := pgtest.Schema(t)
	_, schema2, _ := pgtest.Schema(t)
	pool2 := pgtest.Pool(t, url, schema2)
	a, b := newRecorder(), newRecorder()
	stopA := Start(a.config(pool1, "ch"))
	defer stopA()
	stopB := Start(b.config(pool2, "ch"))
	defer stopB()
	a.want(t, "a", "listen gap=false")
	b.want(t, "b", "listen gap=false")
	if n1, n2 := listeners(t, pool1, schema1), listeners(t, pool1, schema2); n1 != 1 || n2 != 1 {
		t.Fatalf("LISTEN connections %d and %d, want one each", n1, n2)
	}
}

// A subscriber whose database cannot be reached hears OnLost, Start
// returns, and stop does not wait for a connection.
func TestUnreachable(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	cfg := pool.Config().ConnConfig.Copy()
	cfg.Port = 1 // nothing listens there
	cfg.ConnectTimeout = time.Second
	r := newRecorder()
	c := r.config(pool, "ch")
	c.Conn = cfg
	stop := Start(c)
	r.want(t, "r", "lost")
	stop()
}
