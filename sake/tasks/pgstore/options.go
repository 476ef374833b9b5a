package pgstore

import (
	"log/slog"
	"time"
)

// config is what the options set.
type config struct {
	logger     *slog.Logger
	heartbeat  time.Duration
	deadAfter  time.Duration
	cacheBytes int
}

// Option configures a Store.
type Option func(*config)

// Logger receives what the store cannot report to a caller: lost
// LISTEN connections and the re-reads after them, heartbeat failures,
// tasks failed because their replica stopped. The default discards.
func Logger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// Heartbeat sets how often a listening replica records that it is alive
// and sweeps the tasks of stopped replicas. The default is
// DefaultHeartbeat (10 s).
func Heartbeat(d time.Duration) Option {
	return func(c *config) { c.heartbeat = d }
}

// DeadAfter sets how long another replica may go without a heartbeat
// before the tasks it was running are failed. The default is
// DefaultDeadAfter (one minute); keep it several heartbeats long.
func DeadAfter(d time.Duration) Option {
	return func(c *config) { c.deadAfter = d }
}

// CacheBytes bounds the memory a listening Store keeps tasks in (see
// Store): about n bytes of tasks, their results and input requests
// included; beyond it, arbitrary tasks are forgotten and read again from
// the table when asked for. The default is DefaultCacheBytes (16 MiB); 0
// keeps it, and a negative n keeps nothing in memory (every Get reads the
// table).
func CacheBytes(n int) Option {
	return func(c *config) { c.cacheBytes = n }
}

func newConfig(opts []Option) config {
	c := config{heartbeat: DefaultHeartbeat, deadAfter: DefaultDeadAfter, cacheBytes: DefaultCacheBytes}
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.heartbeat <= 0 {
		c.heartbeat = DefaultHeartbeat
	}
	if c.deadAfter <= 0 {
		c.deadAfter = DefaultDeadAfter
	}
	if c.cacheBytes == 0 {
		c.cacheBytes = DefaultCacheBytes
	}
	return c
}
