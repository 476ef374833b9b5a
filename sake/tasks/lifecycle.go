package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// Sweep deletes the tasks that have expired and ends the contexts of those
// still running. It returns how many it deleted. The janitor calls it every
// minute; tests call it after moving the clock.
func (m *Manager) Sweep(ctx context.Context) (int, error) {
	const batch = 256
	now := m.now()
	n := 0
	for {
		ids, err := m.store.Expired(ctx, now, batch)
		if err != nil {
			return n, err
		}
		deleted := 0
		for _, id := range ids {
			err := m.store.Delete(ctx, id)
			switch {
			case err == nil:
				deleted++
			case !errors.Is(err, backend.ErrTaskNotFound):
				return n + deleted, err
			}
			if c := m.control(id); c != nil {
				m.release(c, errExpired)
			}
			m.wake(id)
			if err == nil {
				m.publish(id, nil)
			}
		}
		n += deleted
		if len(ids) < batch || deleted == 0 {
			return n, nil
		}
	}
}

// Shutdown stops accepting tasks, ends the contexts of running ones and
// stops the janitor, then waits until every running task has finished
// (its work called Complete or Fail) or ctx ends. Tasks still running then
// are marked failed with a -32603 "server shutting down" error, and
// Shutdown returns ctx's error. It then stores the final states the store
// refused (MaxUnstored) until none is left or ctx ends; those left then
// are lost (and logged), and Shutdown returns ctx's error. The work
// goroutines themselves belong to the caller, which should wait for them
// too. Shutdown may be called more than once.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	controls := make([]*control, 0, len(m.running))
	for _, c := range m.running {
		controls = append(controls, c)
	}
	m.mu.Unlock()

	m.stopJanitor()
	for _, c := range controls {
		c.cancel(errShutdown)
	}
	defer m.stopFeedOnce()
	forced := false
	for _, c := range controls {
		select {
		case <-c.done:
			continue
		case <-ctx.Done():
		}
		for _, c := range controls {
			if !c.finished.Load() {
				m.cfg.logger.Warn("tasks: failing a task that did not stop before shutdown", "task", c.id)
				c.Fail(&sake.Error{Code: sake.CodeInternalError, Message: "server shutting down"})
				forced = true
			}
		}
		break
	}
	if err := m.flushFinals(ctx); err != nil || forced {
		return ctx.Err()
	}
	return nil
}

// startJanitor starts the goroutine that sweeps expired tasks every minute,
// unless the manager is already shut down.
func (m *Manager) startJanitor() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.janitorStop = cancel
	m.janitorDone = make(chan struct{})
	go m.janitor(ctx, m.janitorDone)
}

// stopJanitor stops the janitor if it started, and waits for it. Once it
// has run, the janitor can no longer start.
func (m *Manager) stopJanitor() {
	m.stopOnce.Do(func() {
		m.janitorOnce.Do(func() {}) // a later Create must not start one
		m.mu.Lock()
		stop, done := m.janitorStop, m.janitorDone
		m.mu.Unlock()
		if stop != nil {
			stop()
			<-done
		}
	})
}

func (m *Manager) janitor(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(sweepInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			n, err := m.Sweep(ctx)
			if err != nil && ctx.Err() == nil {
				m.cfg.logger.Error("tasks: sweeping expired tasks", "error", err)
			}
			if n > 0 {
				m.cfg.logger.Debug("tasks: swept expired tasks", "count", n)
			}
		}
	}
}

// stopFeedOnce stops listening to the other replicas, once.
func (m *Manager) stopFeedOnce() {
	m.feedStopOnce.Do(func() {
		if m.stopFeed != nil {
			m.stopFeed()
		}
	})
}
