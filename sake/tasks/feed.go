package tasks

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// Feed carries task changes between the Managers of several replicas that
// share one Store, so that any replica can serve any task request: a
// tasks/cancel served by one replica ends the work running on another, an
// answer accepted by one reaches the NeedInput waiting on another, and the
// Waits and subscribers of every replica wake on every change.
//
// A Manager publishes each change it stores and acts on the changes the
// others publish. A Store that also implements Feed (sake/tasks/pgstore
// does, over PostgreSQL LISTEN/NOTIFY) is used as the feed unless WithFeed
// names another. A Manager without a feed sees only its own changes, which
// is right for a single process.
type Feed interface {
	// Publish announces a stored change of task id to the other
	// replicas. answers, when not nil, are input responses this replica
	// accepted for a task it does not run; the feed keeps them for
	// TakeAnswers on the replica that does.
	Publish(ctx context.Context, id string, answers map[string]json.RawMessage) error
	// TakeAnswers returns, and forgets, the answers published for id
	// (nil when there are none).
	TakeAnswers(ctx context.Context, id string) (map[string]json.RawMessage, error)
	// Listen calls fn with the id of every change another replica
	// publishes, one call at a time, until stop is called; stop waits
	// for the call in progress. After a gap in which changes may have
	// been missed (a lost connection), fn gets the id "": anything may
	// have changed.
	Listen(fn func(id string)) (stop func())
}

// WithFeed shares task changes with other replicas through f (see Feed).
func WithFeed(f Feed) Option {
	return func(c *config) { c.feed = f }
}

// feedOf is the feed a manager uses: the configured one, else the store
// when it is a Feed.
func feedOf(c config) Feed {
	if c.feed != nil {
		return c.feed
	}
	if f, ok := c.store.(Feed); ok {
		return f
	}
	return nil
}

// publish tells the other replicas that task id changed.
func (m *Manager) publish(id string, answers map[string]json.RawMessage) {
	if m.feed == nil {
		return
	}
	if err := m.feed.Publish(context.Background(), id, answers); err != nil {
		m.cfg.logger.Error("tasks: publishing a task change to the other replicas", "task", id, "error", err)
	}
}

// remoteChange acts on a change another replica stored: the work of a
// task running here ends if it was cancelled, finished or deleted there,
// gets the answers accepted there, and local Waits and subscribers wake.
func (m *Manager) remoteChange(id string) {
	if id == "" {
		m.kickRetry() // the store is back: store what it refused
		m.resync()
		return
	}
	ctx := context.Background()
	t, err := m.store.Get(ctx, id)
	c := m.control(id)
	switch {
	case errors.Is(err, backend.ErrTaskNotFound):
		if c != nil {
			m.release(c, errExpired)
		}
		m.wake(id)
		return
	case err != nil:
		m.cfg.logger.Error("tasks: reading a task another replica changed", "task", id, "error", err)
		m.wake(id)
		return
	}
	t = m.overlay(id, t)
	if c != nil {
		switch {
		case t.Status == sake.TaskCancelled:
			c.cancel(errCancelled)
			m.release(c, errCancelled)
		case t.Terminal():
			m.release(c, errDone)
		default:
			answers, err := m.feed.TakeAnswers(ctx, id)
			if err != nil {
				m.cfg.logger.Error("tasks: taking answers accepted by another replica", "task", id, "error", err)
			} else if len(answers) > 0 {
				c.deliver(answers)
			}
		}
	}
	m.notify(t)
}

// resync re-reads every task running here and wakes every Wait, after the
// feed may have missed changes.
func (m *Manager) resync() {
	m.mu.Lock()
	ids := make([]string, 0, len(m.running)+len(m.watchers))
	for id := range m.running {
		ids = append(ids, id)
	}
	for id := range m.watchers {
		if _, ok := m.running[id]; !ok {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	m.cfg.logger.Warn("tasks: the change feed had a gap; re-reading the tasks running or awaited here", "tasks", len(ids))
	for _, id := range ids {
		m.remoteChange(id)
	}
}
