package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// control is the backend.TaskControl of one task created by a Manager.
type control struct {
	m     *Manager
	id    string
	owner string // counted in m.byOwner while running
	// base is the task as created, which a final state the store refuses
	// is kept as (with the final fields applied).
	base *backend.Task
	// vacated is set (under m.mu) once the slot is given back while the
	// final state is stored.
	vacated bool
	// ctx is the task's context; cancel ends it with a cause.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// storeCtx carries the Create context's values, without its
	// cancellation, to the store calls the work's reports make, marked
	// as such (FromWork).
	storeCtx context.Context
	// finished is set once the task is terminal or gone; done is closed
	// then.
	finished atomic.Bool
	done     chan struct{}

	// mu guards the input round in progress: the keys asked for, the
	// answers delivered so far, and ready, closed when every key has its
	// answer.
	mu      sync.Mutex
	waiting bool
	want    map[string]json.RawMessage
	got     map[string]json.RawMessage
	ready   chan struct{}
}

var _ backend.TaskControl = (*control)(nil)

func newControl(m *Manager, parent context.Context, id string) *control {
	base := context.WithoutCancel(parent)
	ctx, cancel := context.WithCancelCause(base)
	return &control{
		m:        m,
		id:       id,
		ctx:      ctx,
		cancel:   cancel,
		storeCtx: context.WithValue(base, workKey{}, true),
		done:     make(chan struct{}),
	}
}

// Context implements backend.TaskControl. context.Cause tells why it ended.
func (c *control) Context() context.Context { return c.ctx }

// update applies fn to the stored task unless it is terminal, and reports
// the change. It returns nil when the change was stored, errNoChange when
// fn had nothing to change, ErrTaskFinished when the task is terminal or
// gone (it is then released), or the store's error (logged).
func (c *control) update(fn func(*backend.Task) error) error {
	t, err := c.m.store.Update(c.storeCtx, c.id, func(t *backend.Task) error {
		if t.Terminal() {
			return ErrTaskFinished
		}
		return fn(t)
	})
	switch {
	case err == nil:
		c.m.changed(t)
		return nil
	case errors.Is(err, errNoChange):
		return err
	case errors.Is(err, ErrTaskFinished), errors.Is(err, backend.ErrTaskNotFound):
		// Cancelled, or expired, or finished by another replica.
		c.m.release(c, errDone)
		return ErrTaskFinished
	default:
		c.m.cfg.logger.Error("tasks: storing a task's state", "task", c.id, "error", err)
		return err
	}
}

// finish makes the task terminal through fn and releases it: the work has
// ended, whatever the store says. Its running slot is given back before
// the terminal state is stored, so that a caller who reads it (here or on
// another replica) can start its next task at once.
func (c *control) finish(fn func(*backend.Task)) {
	if c.finished.Load() {
		return
	}
	c.m.vacate(c)
	stored := make(chan struct{})
	c.m.mu.Lock()
	c.m.finishing[c.id] = stored
	c.m.mu.Unlock()
	now := c.m.now()
	apply := func(t *backend.Task) {
		fn(t)
		t.InputRequests = nil
		t.LastUpdatedAt = now
	}
	t, err := c.m.store.Update(c.storeCtx, c.id, func(t *backend.Task) error {
		if t.Terminal() {
			return ErrTaskFinished
		}
		apply(t)
		return nil
	})
	var kept *backend.Task
	if err != nil && !errors.Is(err, ErrTaskFinished) && !errors.Is(err, backend.ErrTaskNotFound) {
		// The store is down: keep the final state (answered from here)
		// and store it once the store takes writes again, before the
		// task is released, so that no reader sees it working meanwhile.
		kept = c.m.keepFinal(c, apply, err)
	}
	// Reads may go on: the store, or the kept state, has the final one.
	c.m.mu.Lock()
	delete(c.m.finishing, c.id)
	c.m.mu.Unlock()
	close(stored)
	c.m.release(c, errDone)
	switch {
	case err == nil:
		c.m.changed(t)
	case kept != nil:
		c.m.notify(kept)
	}
}

// NeedInput implements backend.TaskControl. It returns ErrTaskFinished at
// once when the task is terminal, and the context's error when the
// context has ended or ends before every answer has come.
func (c *control) NeedInput(requests map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if c.finished.Load() {
		return nil, ErrTaskFinished
	}
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	if len(requests) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	// Be ready for answers before the requests become visible.
	c.mu.Lock()
	if c.waiting {
		c.mu.Unlock()
		return nil, errors.New("tasks: NeedInput called while another NeedInput waits")
	}
	ready := make(chan struct{})
	c.waiting, c.want, c.got, c.ready = true, requests, make(map[string]json.RawMessage, len(requests)), ready
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.waiting, c.want, c.got, c.ready = false, nil, nil, nil
		c.mu.Unlock()
	}()

	now := c.m.now()
	if err := c.update(func(t *backend.Task) error {
		t.Status = sake.TaskInputRequired
		t.InputRequests = cloneRequests(requests)
		t.LastUpdatedAt = now
		return nil
	}); err != nil {
		return nil, err
	}

	select {
	case <-ready:
	case <-c.ctx.Done():
		return nil, c.ctx.Err()
	}
	c.mu.Lock()
	answers := c.got
	c.mu.Unlock()

	// Answer resumed the task when it took the last answer; this is for a
	// store changed behind the manager's back.
	now = c.m.now()
	_ = c.update(func(t *backend.Task) error {
		if t.Status == sake.TaskWorking && t.InputRequests == nil {
			return errNoChange
		}
		t.Status = sake.TaskWorking
		t.InputRequests = nil
		t.LastUpdatedAt = now
		return nil
	})
	return answers, nil
}

// deliver gives the round in progress the answers Answer took from the
// stored task, and wakes NeedInput when the last one has come.
func (c *control) deliver(answers map[string]json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.waiting || len(c.got) == len(c.want) {
		return
	}
	for k, v := range answers {
		if _, ok := c.want[k]; !ok {
			continue
		}
		if _, ok := c.got[k]; !ok {
			c.got[k] = bytes.Clone(v)
		}
	}
	if len(c.got) == len(c.want) {
		close(c.ready)
	}
}

// Progress implements backend.TaskControl. A message that is not valid
// UTF-8 or holds a NUL is refused with a -32602 *sake.Error before any
// store sees it (PostgreSQL's text cannot hold it; every store behaves
// alike), and the status message stays as it was. A store's failure is
// returned too; once the task is terminal Progress does nothing.
func (c *control) Progress(message string) error {
	if err := checkStatusMessage(message); err != nil {
		return err
	}
	if c.finished.Load() {
		return nil
	}
	now := c.m.now()
	err := c.update(func(t *backend.Task) error {
		t.StatusMessage = message
		t.LastUpdatedAt = now
		return nil
	})
	if errors.Is(err, ErrTaskFinished) {
		return nil
	}
	return err
}

// Complete implements backend.TaskControl. The status message is cleared.
func (c *control) Complete(result json.RawMessage, isError bool) {
	result = bytes.Clone(result)
	c.finish(func(t *backend.Task) {
		t.Status = sake.TaskCompleted
		t.StatusMessage = ""
		t.Result = result
		t.ResultIsError = isError
	})
}

// Fail implements backend.TaskControl. The error's message becomes the status
// message too (the legacy task shape has no error field), with each NUL
// and invalid UTF-8 byte replaced by U+FFFD, since the task must end and
// every store must keep it; a nil err is a -32603 error.
func (c *control) Fail(err *sake.Error) {
	if err == nil {
		err = &sake.Error{Code: sake.CodeInternalError, Message: "task failed"}
	}
	e := *err
	e.Message = mendStatusMessage(e.Message) // the task ends whatever it says
	c.finish(func(t *backend.Task) {
		t.Status = sake.TaskFailed
		t.StatusMessage = e.Message
		t.Error = &e
	})
}
