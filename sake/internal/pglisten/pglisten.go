// Package pglisten keeps a PostgreSQL LISTEN going on a connection of its
// own, listening again after a lost connection, for Sake's replica
// packages.
package pglisten

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Backoff bounds between attempts to listen again.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// Config says what to listen to and what to do.
type Config struct {
	// Conn is how to open the listening connection (a pool's
	// Config().ConnConfig).
	Conn *pgx.ConnConfig
	// Channel is the LISTEN channel.
	Channel string
	// Logger hears about lost connections.
	Logger *slog.Logger
	// OnListen, when set, runs each time the LISTEN is in place, before
	// notifications are read: gap says one was lost before (changes may
	// have been missed).
	OnListen func(ctx context.Context, gap bool)
	// OnLost, when set, runs each time the LISTEN connection is lost (or
	// could not be opened), before listening again: whatever was learnt
	// from notifications may be outdated from now on.
	OnLost func()
	// Notify gets each notification's payload, one at a time.
	Notify func(payload string)
}

// Channel is the channel named base of the servers whose tables live where
// conn's search_path points: NOTIFY channels belong to the whole database,
// so servers in two schemas of one database would hear each other on a
// shared one. Without a search_path in conn's configuration it is base.
func Channel(conn *pgx.ConnConfig, base string) string {
	path := conn.RuntimeParams["search_path"]
	if path == "" {
		return base
	}
	sum := sha256.Sum256([]byte(path))
	return base + "_" + hex.EncodeToString(sum[:8])
}

// Start listens until stop is called; stop waits for the goroutine. Start
// returns once the first LISTEN is in place, or the first attempt failed
// (it then keeps trying).
func Start(c Config) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ready := make(chan struct{})
	readyOnce := sync.OnceFunc(func() { close(ready) })
	go func() {
		defer close(done)
		defer readyOnce()
		backoff := minBackoff
		gap := false
		for ctx.Err() == nil {
			err := listen(ctx, c, gap, readyOnce)
			readyOnce()
			if ctx.Err() != nil {
				return
			}
			gap = true
			if c.OnLost != nil {
				c.OnLost()
			}
			c.Logger.Warn("listening on PostgreSQL failed; listening again, then re-reading what may have been missed",
				"channel", c.Channel, "error", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, maxBackoff)
		}
	}()
	<-ready
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// listen holds one LISTEN until the connection fails or ctx ends.
func listen(ctx context.Context, c Config, gap bool, ready func()) error {
	conn, err := pgx.ConnectConfig(ctx, c.Conn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background()) //nolint:errcheck // a listening connection is dropped, never reused
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{c.Channel}.Sanitize()); err != nil {
		return err
	}
	if c.OnListen != nil {
		c.OnListen(ctx, gap)
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		c.Notify(n.Payload)
	}
}
