package pgstore

import (
	"context"
	"time"
)

// AgeHeartbeat moves replica's last heartbeat back by d, as if it had
// stopped d ago.
func (s *Store) AgeHeartbeat(ctx context.Context, replica string, d time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE sake_task_replicas SET seen_at = seen_at - make_interval(secs => $2) WHERE id = $1`,
		replica, d.Seconds())
	return err
}

// HeartbeatNow records this replica's heartbeat and sweeps, as the
// listening goroutine does every Heartbeat.
func (s *Store) HeartbeatNow(ctx context.Context) { s.heartbeat(ctx) }

// AgeBeating moves back by d the moment since which replica has been
// beating without a gap.
func (s *Store) AgeBeating(ctx context.Context, replica string, d time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE sake_task_replicas SET beating_since = beating_since - make_interval(secs => $2) WHERE id = $1`,
		replica, d.Seconds())
	return err
}

// OnHeard has fn called with each notice from another replica once s has
// taken it in. Set it before s listens.
func OnHeard(s *Store, fn func(id, kind string)) { s.heardHook = fn }

// Cached returns how many tasks s keeps an entry for in memory.
func (s *Store) Cached() int { return s.cache.len() }

// OnTakenAwaiting has fn called when a change a client asked for on s
// starts waiting for the other replicas to confirm they took it in.
func OnTakenAwaiting(s *Store, fn func()) { s.taken.AwaitHook = func(string) { fn() } }
