package pgstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sakemcp/sake-go/sake/internal/pgtest"
)

// queued starts each write on its own goroutine while b is held as
// running, waits until all are pending, then lets b run them: they go in
// one batch. It returns each write's outcome, in order.
func queued(t *testing.T, b *batcher, sqls []string, args [][]any) ([]pgconn.CommandTag, []error) {
	t.Helper()
	b.mu.Lock()
	b.running = true
	b.mu.Unlock()
	tags := make([]pgconn.CommandTag, len(sqls))
	errs := make([]error, len(sqls))
	var wg sync.WaitGroup
	for i := range sqls {
		wg.Go(func() { tags[i], errs[i] = b.exec(context.Background(), sqls[i], args[i]...) })
	}
	for {
		b.mu.Lock()
		n := len(b.pending)
		b.mu.Unlock()
		if n == len(sqls) {
			break
		}
		runtime.Gosched()
	}
	go b.loop(context.Background())
	wg.Wait()
	return tags, errs
}

// Writes that arrive together go in one transaction, each with its own
// outcome; a statement the database refuses fails alone, and the others
// of its batch still hold.
func TestBatchedWrites(t *testing.T) {
	t.Parallel()
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE kv (k text PRIMARY KEY, v int NOT NULL CHECK (v >= 0))`); err != nil {
		t.Fatal(err)
	}
	b := &batcher{pool: pool}

	var sqls []string
	var args [][]any
	for i := range 5 {
		sqls = append(sqls, `INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING`)
		args = append(args, []any{fmt.Sprint("k", i), i})
	}
	tags, errs := queued(t, b, sqls, args)
	for i := range tags {
		if errs[i] != nil || tags[i].RowsAffected() != 1 {
			t.Fatalf("insert %d: %v, %v", i, tags[i], errs[i])
		}
	}

	// A batch with a conditional update that matches nothing, one that
	// does, an insert that conflicts, and one the database refuses.
	sqls = []string{
		`UPDATE kv SET v = v + 10 WHERE k = $1 AND v = $2`,
		`UPDATE kv SET v = v + 10 WHERE k = $1 AND v = $2`,
		`INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING`,
		`UPDATE kv SET v = $2 WHERE k = $1`,
		`INSERT INTO kv (k, v) VALUES ($1, $2)`,
	}
	args = [][]any{{"k0", 99}, {"k1", 1}, {"k2", 0}, {"k3", -1}, {"k5", 5}}
	tags, errs = queued(t, b, sqls, args)
	want := []int64{0, 1, 0, -1, 1}
	for i := range tags {
		if want[i] < 0 {
			if _, ok := errors.AsType[*pgconn.PgError](errs[i]); !ok {
				t.Errorf("write %d: %v, want the database's refusal", i, errs[i])
			}
			continue
		}
		if errs[i] != nil || tags[i].RowsAffected() != want[i] {
			t.Errorf("write %d: %v rows, %v; want %d rows", i, tags[i].RowsAffected(), errs[i], want[i])
		}
	}
	got := map[string]int{}
	rows, err := pool.Query(ctx, `SELECT k, v FROM kv`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		var v int
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	wantKV := map[string]int{"k0": 0, "k1": 11, "k2": 2, "k3": 3, "k4": 4, "k5": 5}
	if fmt.Sprint(got) != fmt.Sprint(wantKV) {
		t.Fatalf("table %v, want %v", got, wantKV)
	}
	// With nothing left to run, the batcher's goroutine ends.
	for {
		b.mu.Lock()
		running, pending := b.running, len(b.pending)
		b.mu.Unlock()
		if pending != 0 {
			t.Fatalf("%d writes pending after every write returned", pending)
		}
		if !running {
			break
		}
		runtime.Gosched()
	}
}
