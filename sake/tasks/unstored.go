package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// Defaults of the final states kept while the store is down.
const (
	// DefaultMaxUnstored is how many final states a manager keeps
	// waiting for the store when MaxUnstored is not given.
	DefaultMaxUnstored = 1000
	defaultRetryMin    = 100 * time.Millisecond
	defaultRetryMax    = 5 * time.Second
)

// unstoredFinal is the final state of a task whose work ended while the
// store could not take it: the manager answers from it and stores it as
// soon as the store takes writes again.
type unstoredFinal struct {
	task  *backend.Task       // the final state, as Get answers it
	apply func(*backend.Task) // makes a stored task that final state
	// refusedWhileUp counts the attempts the store refused while it
	// answered a read of the same task (under the manager's lock).
	refusedWhileUp int
}

// maxRefusedWhileUp is how many attempts a store that answers reads may
// refuse a final state before the task is failed instead: a single one
// may be a connection the outage left broken in a pool whose next one
// works.
const maxRefusedWhileUp = 5

// keepFinal keeps the final state apply gives c's task, after the store
// refused it with err. It returns the final state, or nil when
// MaxUnstored of them are kept already (the final state is then lost and
// logged).
func (m *Manager) keepFinal(c *control, apply func(*backend.Task), err error) *backend.Task {
	final := cloneTask(c.base)
	apply(final)
	m.mu.Lock()
	if limit := m.cfg.maxUnstored; limit > 0 && len(m.unstored) >= limit {
		m.mu.Unlock()
		m.cfg.logger.Error("tasks: the store refused a finished task and too many final states already wait for it (MaxUnstored); this one is lost and the task stays as stored until its TTL",
			"task", c.id, "limit", limit, "error", err)
		return nil
	}
	m.unstored[c.id] = &unstoredFinal{task: final, apply: apply}
	start := m.retryStop == nil && !m.retryStopped
	if start {
		ctx, cancel := context.WithCancel(context.Background())
		m.retryStop, m.retryDone = cancel, make(chan struct{})
		go m.retryFinals(ctx, m.retryDone)
	}
	m.mu.Unlock()
	m.cfg.logger.Warn("tasks: the store refused a finished task; answering from memory and storing it again until it takes it",
		"task", c.id, "error", err)
	m.kickRetry()
	return cloneTask(final)
}

// unstoredTask returns a copy of task id's final state not yet stored, or
// nil.
func (m *Manager) unstoredTask(id string) *backend.Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.unstored[id]; f != nil {
		return cloneTask(f.task)
	}
	return nil
}

// overlay returns t, or the final state of task id kept here when t (as
// stored) is not terminal yet.
func (m *Manager) overlay(id string, t *backend.Task) *backend.Task {
	if t != nil && t.Terminal() {
		return t
	}
	if f := m.unstoredTask(id); f != nil {
		return f
	}
	return t
}

// Unstored returns how many tasks whose work has ended this manager holds
// the final state of because the store could not take it yet. They are
// stored again with a backoff (see RetryBackoff); until then Get, List,
// Wait and Cancel on this manager answer from them.
func (m *Manager) Unstored() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.unstored)
}

// kickRetry has the retrying goroutine try the kept final states now (the
// store took a write, or the change feed is back).
func (m *Manager) kickRetry() {
	select {
	case m.retryKick <- struct{}{}:
	default:
	}
}

// retryFinals stores the kept final states, with a backoff between
// attempts that fail, until ctx ends.
func (m *Manager) retryFinals(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	backoff := m.cfg.retryMin
	for {
		var tick <-chan time.Time
		if m.Unstored() > 0 {
			tick = time.After(backoff)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-m.retryKick:
		}
		if m.storeFinals(ctx) {
			backoff = m.cfg.retryMin
		} else {
			backoff = min(2*backoff, m.cfg.retryMax)
		}
	}
}

// storeFinals tries to store every kept final state, stopping at the
// first the store refuses. It reports whether none is left.
func (m *Manager) storeFinals(ctx context.Context) bool {
	m.mu.Lock()
	pending := make(map[string]*unstoredFinal, len(m.unstored))
	for id, f := range m.unstored {
		pending[id] = f
	}
	m.mu.Unlock()
	now := m.now()
	for id, f := range pending {
		if expired(f.task, now) {
			m.forgetFinal(id, f)
			m.wake(id)
			continue
		}
		t, err := m.store.Update(ctx, id, func(t *backend.Task) error {
			if t.Terminal() {
				return ErrTaskFinished
			}
			f.apply(t)
			return nil
		})
		switch {
		case err == nil:
			m.forgetFinal(id, f)
			m.cfg.logger.Info("tasks: stored the final state of a task once the store took it", "task", id)
			m.notify(t)
			m.publish(id, nil)
		case errors.Is(err, ErrTaskFinished), errors.Is(err, backend.ErrTaskNotFound):
			// Cancelled meanwhile, failed as its replica was taken as
			// stopped, or expired: what is stored stands.
			m.forgetFinal(id, f)
			m.cfg.logger.Warn("tasks: dropped a final state kept for the store: the task ended otherwise meanwhile", "task", id)
			m.wake(id)
		default:
			if ctx.Err() != nil {
				return false
			}
			if _, gerr := m.store.Get(ctx, id); gerr == nil {
				// The store is up and refused this state: after a few
				// attempts it refuses the state itself, and trying again
				// would not help; until then the others go on.
				m.mu.Lock()
				f.refusedWhileUp++
				giveUp := f.refusedWhileUp >= maxRefusedWhileUp
				m.mu.Unlock()
				if giveUp {
					m.forgetFinal(id, f)
					m.storeUnstorable(ctx, id, err)
				}
				continue
			}
			m.cfg.logger.Warn("tasks: the store still refuses finished tasks; trying again", "tasks", len(pending), "error", err)
			return false
		}
	}
	return m.Unstored() == 0
}

// unstorableMessage is the status message of a task whose final state
// the store refused while it took other writes.
const unstorableMessage = "the task's work ended but the server could not store its outcome"

// storeUnstorable fails task id with a -32603 error, after the store
// refused (with refusal) the final state its work reported.
func (m *Manager) storeUnstorable(ctx context.Context, id string, refusal error) {
	m.cfg.logger.Error("tasks: the store refuses the final state of a finished task; failing the task instead",
		"task", id, "error", refusal)
	now := m.now()
	t, err := m.store.Update(ctx, id, func(t *backend.Task) error {
		if t.Terminal() {
			return ErrTaskFinished
		}
		t.Status = sake.TaskFailed
		t.StatusMessage = unstorableMessage
		t.Error = &sake.Error{Code: sake.CodeInternalError, Message: unstorableMessage}
		t.Result, t.ResultIsError, t.InputRequests = nil, false, nil
		t.LastUpdatedAt = now
		return nil
	})
	if err != nil {
		if !errors.Is(err, ErrTaskFinished) && !errors.Is(err, backend.ErrTaskNotFound) {
			m.cfg.logger.Error("tasks: the store refuses to fail a task whose outcome it refused; it stays as stored until its TTL",
				"task", id, "error", err)
		}
		m.wake(id)
		return
	}
	m.notify(t)
	m.publish(id, nil)
}

// forgetFinal drops f, task id's kept final state, unless it was replaced.
func (m *Manager) forgetFinal(id string, f *unstoredFinal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unstored[id] == f {
		delete(m.unstored, id)
	}
}

// flushFinals stops the retrying goroutine and stores the kept final
// states until none is left or ctx ends; those left then are lost, and
// logged.
func (m *Manager) flushFinals(ctx context.Context) error {
	m.mu.Lock()
	stop, done := m.retryStop, m.retryDone
	m.retryStopped = true
	m.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	backoff := m.cfg.retryMin
	for !m.storeFinals(ctx) {
		select {
		case <-ctx.Done():
			m.cfg.logger.Error("tasks: shut down before the store took the final state of finished tasks; they stay as stored until their TTL",
				"tasks", m.Unstored())
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, m.cfg.retryMax)
	}
	return nil
}

// unavailableError is a store failure as the caller of a Manager method
// gets it: it wraps the store's error and is, for the dispatcher
// (errors.As), a -32603 error telling the client to retry.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string {
	return "tasks: the task store is unavailable: " + e.err.Error()
}
func (e *unavailableError) Unwrap() error { return e.err }
func (e *unavailableError) As(target any) bool {
	p, ok := target.(**sake.Error)
	if !ok || errors.As(e.err, p) {
		return ok
	}
	*p = &sake.Error{Code: sake.CodeInternalError,
		Message: "Task status unavailable: the server cannot reach its task store just now; retry in a moment",
		Data:    map[string]any{"reason": "task_store_unavailable"}}
	return true
}

// unavailable wraps a store's error for the caller of a Manager method;
// ctx's own end and backend.ErrTaskNotFound pass as they are.
func unavailable(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, backend.ErrTaskNotFound) {
		return err
	}
	var u *unavailableError
	if errors.As(err, &u) {
		return err
	}
	return &unavailableError{err}
}
