package tasks

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/backend"
)

// memoryStore is the Store of one process.
type memoryStore struct {
	mu      sync.RWMutex
	tasks   map[string]*memoryEntry
	byOwner map[string]map[string]*memoryEntry
	seq     uint64
}

// memoryEntry is a stored task and the order it was stored in, which breaks
// ties between tasks created in the same instant.
type memoryEntry struct {
	task *backend.Task
	seq  uint64
}

// NewMemoryStore returns a Store that keeps tasks in memory: they last as
// long as the process, and only its Manager sees them.
func NewMemoryStore() Store {
	return &memoryStore{
		tasks:   make(map[string]*memoryEntry),
		byOwner: make(map[string]map[string]*memoryEntry),
	}
}

// Create implements Store.
func (s *memoryStore) Create(_ context.Context, t *backend.Task) error {
	if t == nil || t.ID == "" {
		return errors.New("tasks: task without an id")
	}
	c := cloneTask(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tasks[t.ID]; ok {
		return ErrTaskExists
	}
	s.seq++
	e := &memoryEntry{task: c, seq: s.seq}
	s.tasks[c.ID] = e
	owned := s.byOwner[c.Owner]
	if owned == nil {
		owned = make(map[string]*memoryEntry)
		s.byOwner[c.Owner] = owned
	}
	owned[c.ID] = e
	return nil
}

// Get implements Store.
func (s *memoryStore) Get(_ context.Context, id string) (*backend.Task, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.tasks[id]
	if !ok {
		return nil, backend.ErrTaskNotFound
	}
	return cloneTask(e.task), nil
}

// Update implements Store. fn runs under the store's lock, once.
func (s *memoryStore) Update(_ context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.tasks[id]
	if !ok {
		return nil, backend.ErrTaskNotFound
	}
	work := cloneTask(e.task)
	if err := fn(work); err != nil {
		return nil, err
	}
	if work.ID != e.task.ID || work.Owner != e.task.Owner {
		return nil, errors.New("tasks: Update must not change a task's id or owner")
	}
	// Store a copy, so that nothing fn put in work (a caller's slice or
	// map) stays reachable from outside; work is the caller's.
	e.task = cloneTask(work)
	return work, nil
}

// Delete implements Store.
func (s *memoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.tasks[id]
	if !ok {
		return backend.ErrTaskNotFound
	}
	delete(s.tasks, id)
	owned := s.byOwner[e.task.Owner]
	delete(owned, id)
	if len(owned) == 0 {
		delete(s.byOwner, e.task.Owner)
	}
	return nil
}

// List implements Store. It sorts the owner's tasks on every call, which
// is cheap for the few tasks one owner keeps within their TTL.
func (s *memoryStore) List(_ context.Context, owner, after string, limit int) ([]*backend.Task, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	owned := s.byOwner[owner]
	var start *memoryEntry
	if after != "" {
		start = owned[after]
		if start == nil {
			return nil, backend.ErrTaskNotFound
		}
	}
	entries := make([]*memoryEntry, 0, len(owned))
	for _, e := range owned {
		if start == nil || newer(start, e) {
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b *memoryEntry) int {
		if newer(a, b) {
			return -1
		}
		return 1
	})
	if limit > 0 && len(entries) > limit {
		entries = entries[:limit]
	}
	out := make([]*backend.Task, len(entries))
	for i, e := range entries {
		out[i] = cloneTask(e.task)
	}
	return out, nil
}

// newer reports whether a comes before b in a list: created later, or in
// the same instant and stored later.
func newer(a, b *memoryEntry) bool {
	if c := a.task.CreatedAt.Compare(b.task.CreatedAt); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// Expired implements Store. It scans every task, which the janitor does
// once a minute.
func (s *memoryStore) Expired(_ context.Context, now time.Time, limit int) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []string
	for id, e := range s.tasks {
		if expired(e.task, now) {
			ids = append(ids, id)
			if limit > 0 && len(ids) == limit {
				break
			}
		}
	}
	return ids, nil
}
