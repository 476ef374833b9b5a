package tasks

import (
	"context"

	"github.com/sakemcp/sake-go/sake/backend"
)

// watcher wakes the Waits of one task: ch is closed and replaced on every
// change.
type watcher struct {
	ch   chan struct{}
	refs int
}

// Wait implements backend.TaskManager. It blocks on the task's change
// notifications, never polling; a nil until waits for a terminal status.
// A task deleted (expired) while waited on is backend.ErrTaskNotFound.
func (m *Manager) Wait(ctx context.Context, owner, id string, until func(*backend.Task) bool) (*backend.Task, error) {
	if until == nil {
		until = (*backend.Task).Terminal
	}
	m.mu.Lock()
	w := m.watchers[id]
	if w == nil {
		w = &watcher{ch: make(chan struct{})}
		m.watchers[id] = w
	}
	w.refs++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		if w.refs--; w.refs == 0 && m.watchers[id] == w {
			delete(m.watchers, id)
		}
		m.mu.Unlock()
	}()
	for {
		// Take the channel before reading the task, so that a change
		// between the read and the select is not missed.
		m.mu.Lock()
		ch := w.ch
		m.mu.Unlock()
		t, err := m.Get(ctx, owner, id)
		if err != nil {
			return nil, err
		}
		if until(t) {
			return t, nil
		}
		if m.waitHook != nil {
			m.waitHook()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Subscribe implements backend.TaskManager. fn gets its own copy of the task
// after every change of one of owner's tasks (creation is not a change:
// Create's caller has the task; deletion by expiry is not reported
// either). It is called from the goroutine that made the change, after the
// store has it and outside the manager's locks; changes made by different
// goroutines at once may arrive in either order (compare LastUpdatedAt).
func (m *Manager) Subscribe(owner string, fn func(*backend.Task)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	m.mu.Lock()
	m.nextSub++
	key := m.nextSub
	subs := m.subs[owner]
	if subs == nil {
		subs = make(map[uint64]func(*backend.Task))
		m.subs[owner] = subs
	}
	subs[key] = fn
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if subs := m.subs[owner]; subs != nil {
			delete(subs, key)
			if len(subs) == 0 {
				delete(m.subs, owner)
			}
		}
	}
}

// wake wakes the Waits of task id.
func (m *Manager) wake(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.watchers[id]; w != nil {
		close(w.ch)
		w.ch = make(chan struct{})
	}
}

// changed reports a stored change of t to its waiters and its owner's
// subscribers, here and on the other replicas.
func (m *Manager) changed(t *backend.Task) {
	m.notify(t)
	m.publish(t.ID, nil)
	if m.Unstored() > 0 {
		m.kickRetry() // the store takes writes again
	}
}

// notify reports a stored change of t to this manager's waiters and its
// owner's subscribers.
func (m *Manager) notify(t *backend.Task) {
	m.mu.Lock()
	if w := m.watchers[t.ID]; w != nil {
		close(w.ch)
		w.ch = make(chan struct{})
	}
	var fns []func(*backend.Task)
	if subs := m.subs[t.Owner]; len(subs) > 0 {
		fns = make([]func(*backend.Task), 0, len(subs))
		for _, fn := range subs {
			fns = append(fns, fn)
		}
	}
	m.mu.Unlock()
	for _, fn := range fns {
		fn(cloneTask(t))
	}
}
