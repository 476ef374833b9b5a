package state

import (
	"context"
	"sync"
	"time"
)

// DefaultMemoryBytes bounds a MemoryStore made with NewMemoryStore(0): the
// sum of every live key's and value's length, 64 MiB.
const DefaultMemoryBytes = 64 << 20

// MemoryStore keeps values in this process: the default store, for one
// process. Expired values are dropped when read, and all of them when a
// write finds the store full.
type MemoryStore struct {
	mu       sync.Mutex
	scopes   map[string]*memoryScope
	bytes    int64
	maxBytes int64
	now      func() time.Time
}

type memoryScope struct {
	entries map[string]*memoryEntry
	bytes   int64
}

type memoryEntry struct {
	value   []byte
	version int64
	expires time.Time
}

// NewMemoryStore makes a MemoryStore holding at most maxBytes of keys and
// values in all (DefaultMemoryBytes when 0 or less).
func NewMemoryStore(maxBytes int64) *MemoryStore {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryBytes
	}
	return &MemoryStore{scopes: map[string]*memoryScope{}, maxBytes: maxBytes, now: time.Now}
}

// Load implements Store.
func (m *MemoryStore) Load(_ context.Context, scope, key string) (Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(scope, key)
	if e == nil {
		return Entry{}, ErrNotFound
	}
	return Entry{Value: e.value, Version: e.version}, nil
}

// live returns a key's entry if it has not expired, dropping it if it
// has. Called with m.mu held.
func (m *MemoryStore) live(scope, key string) *memoryEntry {
	sc := m.scopes[scope]
	if sc == nil {
		return nil
	}
	e := sc.entries[key]
	if e == nil {
		return nil
	}
	if !m.now().Before(e.expires) {
		m.drop(scope, sc, key, e)
		return nil
	}
	return e
}

func (m *MemoryStore) drop(scope string, sc *memoryScope, key string, e *memoryEntry) {
	n := int64(len(key) + len(e.value))
	sc.bytes -= n
	m.bytes -= n
	delete(sc.entries, key)
	if len(sc.entries) == 0 {
		delete(m.scopes, scope)
	}
}

// Save implements Store.
func (m *MemoryStore) Save(_ context.Context, w Write) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.live(w.Scope, w.Key)
	switch {
	case w.IfVersion == AnyVersion:
	case w.IfVersion == 0 && old != nil:
		return 0, ErrConflict
	case w.IfVersion > 0 && (old == nil || old.version != w.IfVersion):
		return 0, ErrConflict
	}
	sc := m.scopes[w.Scope]
	var oldBytes int64
	keys := 0
	if sc != nil {
		keys = len(sc.entries)
	}
	if old != nil {
		oldBytes = int64(len(w.Key) + len(old.value))
	} else {
		keys++
	}
	add := int64(len(w.Key)+len(w.Value)) - oldBytes
	if sc != nil && (w.MaxScopeBytes > 0 && sc.bytes+add > w.MaxScopeBytes || w.MaxScopeKeys > 0 && keys > w.MaxScopeKeys) {
		m.sweepScope(w.Scope, sc)
		sc = m.scopes[w.Scope]
		keys = 1
		if sc != nil {
			keys = len(sc.entries)
			if old == nil {
				keys++
			}
		}
	}
	if sc != nil && (w.MaxScopeBytes > 0 && sc.bytes+add > w.MaxScopeBytes || w.MaxScopeKeys > 0 && keys > w.MaxScopeKeys) {
		return 0, ErrFull
	}
	if sc == nil && w.MaxScopeBytes > 0 && add > w.MaxScopeBytes {
		return 0, ErrFull
	}
	if m.bytes+add > m.maxBytes {
		m.sweepAll()
		if m.bytes+add > m.maxBytes {
			return 0, ErrFull
		}
	}
	if sc == nil {
		sc = &memoryScope{entries: map[string]*memoryEntry{}}
		m.scopes[w.Scope] = sc
	}
	version := int64(1)
	if old != nil {
		version = old.version + 1
	}
	sc.entries[w.Key] = &memoryEntry{value: append([]byte(nil), w.Value...), version: version, expires: m.now().Add(w.TTL)}
	sc.bytes += add
	m.bytes += add
	return version, nil
}

func (m *MemoryStore) sweepScope(scope string, sc *memoryScope) {
	now := m.now()
	for k, e := range sc.entries {
		if !now.Before(e.expires) {
			m.drop(scope, sc, k, e)
		}
	}
}

func (m *MemoryStore) sweepAll() {
	for name, sc := range m.scopes {
		m.sweepScope(name, sc)
	}
}

// Delete implements Store.
func (m *MemoryStore) Delete(_ context.Context, scope, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if sc := m.scopes[scope]; sc != nil {
		if e := sc.entries[key]; e != nil {
			m.drop(scope, sc, key, e)
		}
	}
	return nil
}

// Clear implements Store.
func (m *MemoryStore) Clear(_ context.Context, scope string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if sc := m.scopes[scope]; sc != nil {
		m.bytes -= sc.bytes
		delete(m.scopes, scope)
	}
	return nil
}

// Bytes is the sum of the stored keys' and values' lengths, expired ones
// not yet dropped included.
func (m *MemoryStore) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}
