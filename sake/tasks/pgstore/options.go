package pgstore

import (
	"log/slog"
	"time"
)

// config is what the options set.
type config struct {
	logger    *slog.Logger
	heartbeat time.Duration
	deadAfter time.Duration
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

func newConfig(opts []Option) config {
	c := config{heartbeat: DefaultHeartbeat, deadAfter: DefaultDeadAfter}
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
	return c
}
