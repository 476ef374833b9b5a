package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// Errors of the manager.
var (
	// ErrTooMany is matched (errors.Is) by the error Create returns when
	// MaxRunning tasks are running.
	ErrTooMany = errors.New("tasks: too many running tasks")
	// ErrTooManyForOwner is matched (errors.Is) by the error Create
	// returns when the owner already has MaxRunningPerOwner tasks running.
	ErrTooManyForOwner = errors.New("tasks: too many running tasks for this owner")
	// ErrClosed is returned by Create after Shutdown.
	ErrClosed = errors.New("tasks: manager shut down")
	// ErrTaskFinished is returned by backend.TaskControl.NeedInput once the
	// task is terminal (completed, failed, cancelled) or gone.
	ErrTaskFinished = errors.New("tasks: task has finished")
)

// Causes of the end of a task's context (context.Cause).
var (
	errCancelled = errors.New("tasks: task cancelled by the client")
	errExpired   = errors.New("tasks: task expired")
	errShutdown  = errors.New("tasks: server shutting down")
	errDone      = errors.New("tasks: task finished")
)

// errNoChange aborts a store update that would change nothing.
var errNoChange = errors.New("tasks: no change")

// cancelledMessage is the status message of a task cancelled by its owner.
const cancelledMessage = "Cancelled by the client"

// Manager keeps tasks in a Store and runs their life cycle. It implements
// backend.TaskManager. Build it with New; its zero value is not usable.
type Manager struct {
	cfg          config
	store        Store
	feed         Feed // nil in a single process
	stopFeed     func()
	feedStopOnce sync.Once

	ownerFull, serverFull error // what Create returns at the limits

	mu       sync.Mutex
	closed   bool
	pending  int                 // Creates between reserving a slot and storing the task
	running  map[string]*control // non-terminal tasks created here, by id
	byOwner  map[string]int      // running and pending tasks, by owner
	vacated  int                 // tasks in running whose slot is given back (being finished)
	watchers map[string]*watcher // Waits in progress, by task id
	// finishing holds, by task id, a channel closed once the final state
	// the work of a task running here reported has been stored (or
	// kept, or refused): a read meanwhile waits for it rather than
	// answer a state the work has already left.
	finishing map[string]chan struct{}
	subs      map[string]map[uint64]func(*backend.Task)
	nextSub   uint64
	// unstored holds the final states the store refused, by task id,
	// until a retry stores them (unstored.go).
	unstored     map[string]*unstoredFinal
	retryKick    chan struct{}
	retryStop    context.CancelFunc
	retryDone    chan struct{}
	retryStopped bool // Shutdown stores what is left itself

	janitorOnce sync.Once
	janitorStop context.CancelFunc
	janitorDone chan struct{}
	stopOnce    sync.Once

	// waitHook, when set (by tests), is called each time Wait is about to
	// block.
	waitHook func()
}

var _ backend.TaskManager = (*Manager)(nil)

// New returns a Manager.
func New(opts ...Option) *Manager {
	cfg := newConfig(opts)
	m := &Manager{
		cfg:       cfg,
		store:     cfg.store,
		feed:      feedOf(cfg),
		running:   make(map[string]*control),
		byOwner:   make(map[string]int),
		watchers:  make(map[string]*watcher),
		finishing: make(map[string]chan struct{}),
		subs:      make(map[string]map[uint64]func(*backend.Task)),
		unstored:  make(map[string]*unstoredFinal),
		retryKick: make(chan struct{}, 1),
	}
	m.ownerFull, m.serverFull = newLimitErrors(cfg)
	if m.feed != nil {
		m.stopFeed = m.feed.Listen(m.remoteChange)
	}
	return m
}

// now is the manager's clock in UTC, to the millisecond.
func (m *Manager) now() time.Time {
	return m.cfg.now().UTC().Truncate(time.Millisecond)
}

// ttl is the TTL a task gets when ttl is asked for.
func (m *Manager) ttl(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		ttl = m.cfg.defaultTTL
		if ttl < 0 {
			return 0
		}
	}
	if m.cfg.maxTTL > 0 && ttl > m.cfg.maxTTL {
		ttl = m.cfg.maxTTL
	}
	return ttl
}

// Create implements backend.TaskManager. The task's context
// (backend.TaskControl.Context) keeps ctx's values but not its
// cancellation: it ends when the task is cancelled, expires or finishes,
// or the manager shuts down.
func (m *Manager) Create(ctx context.Context, owner string, opts backend.TaskOptions) (*backend.Task, backend.TaskControl, error) {
	m.mu.Lock()
	switch {
	case m.closed:
		m.mu.Unlock()
		return nil, nil, ErrClosed
	case m.cfg.maxPerOwner > 0 && m.byOwner[owner] >= m.cfg.maxPerOwner:
		m.mu.Unlock()
		return nil, nil, m.ownerFull
	case m.cfg.maxRunning > 0 && len(m.running)-m.vacated+m.pending >= m.cfg.maxRunning:
		m.mu.Unlock()
		return nil, nil, m.serverFull
	}
	m.pending++
	m.byOwner[owner]++
	m.mu.Unlock()
	m.janitorOnce.Do(m.startJanitor)

	now := m.now()
	poll := opts.PollInterval
	if poll <= 0 {
		poll = m.cfg.pollInterval
	}
	t := &backend.Task{
		ID:            newID(),
		Owner:         owner,
		Tool:          opts.Tool,
		Status:        sake.TaskWorking,
		CreatedAt:     now,
		LastUpdatedAt: now,
		TTL:           m.ttl(opts.TTL),
		PollInterval:  poll,
	}
	err := m.store.Create(ctx, t)

	m.mu.Lock()
	m.pending--
	if err != nil || m.closed {
		m.ownerDone(owner)
	}
	if err != nil {
		m.mu.Unlock()
		return nil, nil, err
	}
	if m.closed {
		m.mu.Unlock()
		// Shutdown began while the task was being stored: nobody will run
		// it.
		_ = m.store.Delete(context.WithoutCancel(ctx), t.ID)
		return nil, nil, ErrClosed
	}
	c := newControl(m, ctx, t.ID)
	c.owner = owner
	c.base = cloneTask(t)
	m.running[t.ID] = c
	m.mu.Unlock()
	return t, c, nil
}

// awaitFinal waits, when the work of task id has ended here and its final
// state is being stored, until it is: one statement's time, rather than a
// read answering "working" for a task whose work is over.
func (m *Manager) awaitFinal(ctx context.Context, id string) error {
	m.mu.Lock()
	ch := m.finishing[id]
	m.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// visible reports whether owner may see t at now.
func visible(t *backend.Task, owner string, now time.Time) bool {
	return t.Owner == owner && !expired(t, now)
}

// Get implements backend.TaskManager. A task that has expired is not found,
// even before the janitor deletes it. A task whose work ended here while
// the store refused its final state is answered from that state (see
// MaxUnstored); a store failure otherwise is an error that tells the
// client to retry (a -32603 *sake.Error).
func (m *Manager) Get(ctx context.Context, owner, id string) (*backend.Task, error) {
	if err := m.awaitFinal(ctx, id); err != nil {
		return nil, err
	}
	t, err := m.store.Get(ctx, id)
	if err != nil && !errors.Is(err, backend.ErrTaskNotFound) {
		t = m.unstoredTask(id)
		if t == nil {
			return nil, unavailable(ctx, err)
		}
	} else if err != nil {
		return nil, err
	}
	t = m.overlay(id, t)
	if !visible(t, owner, m.now()) {
		return nil, backend.ErrTaskNotFound
	}
	return t, nil
}

// Answer implements backend.TaskManager. Answered keys leave the task's
// InputRequests at once; when none is left the task is working again and
// the work's NeedInput returns every answer. Answers for a task that does
// not await input are ignored.
func (m *Manager) Answer(ctx context.Context, owner, id string, responses map[string]json.RawMessage) error {
	now := m.now()
	if f := m.unstoredTask(id); f != nil {
		if !visible(f, owner, now) {
			return backend.ErrTaskNotFound
		}
		return nil // finished here: nothing awaits input
	}
	var accepted map[string]json.RawMessage
	t, err := m.store.Update(ctx, id, func(t *backend.Task) error {
		accepted = nil
		if !visible(t, owner, now) {
			return backend.ErrTaskNotFound
		}
		if t.Status != sake.TaskInputRequired {
			return errNoChange
		}
		for k, v := range responses {
			if _, ok := t.InputRequests[k]; ok {
				if accepted == nil {
					accepted = make(map[string]json.RawMessage)
				}
				accepted[k] = v
				delete(t.InputRequests, k)
			}
		}
		if accepted == nil {
			return errNoChange
		}
		if len(t.InputRequests) == 0 {
			t.Status = sake.TaskWorking
			t.InputRequests = nil
		}
		t.LastUpdatedAt = now
		return nil
	})
	switch {
	case errors.Is(err, errNoChange):
		return nil
	case err != nil:
		return unavailable(ctx, err)
	}
	if c := m.control(id); c != nil {
		c.deliver(accepted)
		accepted = nil
	}
	m.notify(t)
	m.publish(id, accepted)
	return nil
}

// Cancel implements backend.TaskManager: a task not yet terminal becomes
// cancelled at once and its context ends; a terminal task is returned as
// it is.
func (m *Manager) Cancel(ctx context.Context, owner, id string) (*backend.Task, error) {
	now := m.now()
	if f := m.unstoredTask(id); f != nil {
		// Finished here, the store not told yet: terminal as it is.
		if !visible(f, owner, now) {
			return nil, backend.ErrTaskNotFound
		}
		return f, nil
	}
	var unchanged *backend.Task
	t, err := m.store.Update(ctx, id, func(t *backend.Task) error {
		unchanged = nil
		if !visible(t, owner, now) {
			return backend.ErrTaskNotFound
		}
		if t.Terminal() {
			unchanged = t
			return errNoChange
		}
		t.Status = sake.TaskCancelled
		t.StatusMessage = cancelledMessage
		t.InputRequests = nil
		t.LastUpdatedAt = now
		return nil
	})
	switch {
	case errors.Is(err, errNoChange):
		return unchanged, nil
	case err != nil:
		return nil, unavailable(ctx, err)
	}
	if c := m.control(id); c != nil {
		c.cancel(errCancelled) // the cause, should the work finish meanwhile
		m.release(c, errCancelled)
	}
	m.changed(t)
	return t, nil
}

// List implements backend.TaskManager. The cursor is the id of the last task
// of the previous page; a cursor that is not one of owner's tasks (it may
// have expired since) is a -32602 *sake.Error. limit <= 0 means 100, and
// at most 1000 tasks come at once.
// Expired tasks not yet swept are left out, so a page may be shorter than
// limit and still have a next one.
func (m *Manager) List(ctx context.Context, owner, cursor string, limit int) ([]*backend.Task, string, error) {
	if limit <= 0 {
		limit = defaultPageSize
	}
	limit = min(limit, maxPageSize)
	page, err := m.store.List(ctx, owner, cursor, limit+1)
	if errors.Is(err, backend.ErrTaskNotFound) {
		return nil, "", sake.InvalidParams("invalid cursor")
	}
	if err != nil {
		return nil, "", unavailable(ctx, err)
	}
	next := ""
	if len(page) > limit {
		page = page[:limit]
		next = page[limit-1].ID
	}
	now := m.now()
	out := page[:0]
	for _, t := range page {
		t = m.overlay(t.ID, t)
		if !expired(t, now) {
			out = append(out, t)
		}
	}
	return out, next, nil
}

// Running returns how many tasks created by this manager are running (not
// terminal) now.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.running) - m.vacated
}

// control returns the running control of task id, or nil.
func (m *Manager) control(id string) *control {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running[id]
}

// release frees c's running slot and ends its context with cause, once:
// the task is terminal or gone.
func (m *Manager) release(c *control, cause error) {
	if !c.finished.CompareAndSwap(false, true) {
		return
	}
	m.mu.Lock()
	if m.running[c.id] == c {
		delete(m.running, c.id)
		if c.vacated {
			m.vacated--
		} else {
			m.ownerDone(c.owner)
		}
	}
	m.mu.Unlock()
	c.cancel(cause)
	close(c.done)
}

// vacate gives back c's running slot (its owner's and the server's)
// while its final state is being stored; release forgets it after that.
// Shutdown still waits for it.
func (m *Manager) vacate(c *control) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running[c.id] == c && !c.vacated {
		c.vacated = true
		m.vacated++
		m.ownerDone(c.owner)
	}
}

// newID returns a random (version 4) UUID.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// ownerDone gives back one of owner's running slots. m.mu is held.
func (m *Manager) ownerDone(owner string) {
	if n := m.byOwner[owner]; n > 1 {
		m.byOwner[owner] = n - 1
	} else {
		delete(m.byOwner, owner)
	}
}

// limitError is a refused Create: it matches its sentinel (errors.Is) and
// is, for the dispatcher (errors.As), the JSON-RPC error the caller gets.
type limitError struct {
	sentinel error
	rpc      *sake.Error
}

func (e *limitError) Error() string        { return e.sentinel.Error() + ": " + e.rpc.Message }
func (e *limitError) Is(target error) bool { return target == e.sentinel }
func (e *limitError) As(target any) bool {
	if p, ok := target.(**sake.Error); ok {
		*p = e.rpc
		return true
	}
	return false
}

func newLimitErrors(cfg config) (owner, server error) {
	owner = &limitError{ErrTooManyForOwner, &sake.Error{Code: sake.CodeServerBusy,
		Message: "Too many tasks: you already have " + strconv.Itoa(cfg.maxPerOwner) +
			" tasks running, the most one caller may have; wait for one to finish or cancel one (tasks/cancel), then call again",
		Data: map[string]any{"reason": "tasks_per_owner", "limit": cfg.maxPerOwner}}}
	server = &limitError{ErrTooMany, &sake.Error{Code: sake.CodeServerBusy,
		Message: "Server busy: the server is running as many tasks as it may (" + strconv.Itoa(cfg.maxRunning) + "); call again once some have finished",
		Data:    map[string]any{"reason": "tasks_per_server", "limit": cfg.maxRunning}}}
	return owner, server
}
