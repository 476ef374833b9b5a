package pgstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxBatch bounds how many writes go in one transaction.
const maxBatch = 32

// batchTimeout bounds one batch's round trip: a database that stops
// answering fails the batch's writes with an error instead of holding
// them (and every write queued behind them) forever.
const batchTimeout = 30 * time.Second

// batcher runs the one-statement writes of a Store (a creation, an update
// conditional on the version) that arrive while others are on their way
// together, in one round trip and one transaction: one commit, and one
// wake-up of each listening replica for all their notices. A write that
// finds none on its way goes at once, alone. Each statement's outcome is
// its own (a conditional update that matches no row leaves the others
// alone); a batch that fails with an error from the database was rolled
// back as a whole, and each of its writes is then run alone, so one
// write's error is its own too.
type batcher struct {
	pool *pgxpool.Pool

	mu      sync.Mutex
	pending []*batchWrite
	running bool // a goroutine is running batches
}

// batchWrite is one statement waiting for its batch.
type batchWrite struct {
	sql  string
	args []any
	tag  pgconn.CommandTag
	err  error
	done chan struct{}
}

// exec runs sql with args, in a batch with the writes that arrive
// meanwhile, and returns its command tag. It waits for the statement's
// outcome whatever ctx does: the write may have been sent already.
func (b *batcher) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	w := &batchWrite{sql: sql, args: args, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, w)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.loop(context.WithoutCancel(ctx))
	}
	<-w.done
	return w.tag, w.err
}

// loop runs batches until no write is waiting.
func (b *batcher) loop(ctx context.Context) {
	for {
		b.mu.Lock()
		batch := b.pending
		if len(batch) > maxBatch {
			batch = batch[:maxBatch:maxBatch]
			b.pending = b.pending[maxBatch:]
		} else {
			b.pending = nil
		}
		if len(batch) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		bctx, cancel := context.WithTimeout(ctx, batchTimeout)
		b.run(bctx, batch)
		cancel()
	}
}

// run executes one batch and wakes its writers.
func (b *batcher) run(ctx context.Context, batch []*batchWrite) {
	defer func() {
		for _, w := range batch {
			close(w.done)
		}
	}()
	if len(batch) == 1 {
		w := batch[0]
		w.tag, w.err = b.pool.Exec(ctx, w.sql, w.args...)
		return
	}
	q := &pgx.Batch{}
	for _, w := range batch {
		q.Queue(w.sql, w.args...)
	}
	results := b.pool.SendBatch(ctx, q)
	var err error
	for _, w := range batch {
		if w.tag, err = results.Exec(); err != nil {
			break
		}
	}
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		return
	}
	if _, ok := errors.AsType[*pgconn.PgError](err); ok {
		// The database refused a statement: the transaction was rolled
		// back, nothing of it holds. Each write goes again, alone.
		for _, w := range batch {
			w.tag, w.err = b.pool.Exec(ctx, w.sql, w.args...)
		}
		return
	}
	// The connection failed: whether the batch committed is unknown.
	for _, w := range batch {
		w.tag, w.err = pgconn.CommandTag{}, err
	}
}
