package server

import (
	"context"
	"slices"
)

// DefaultMaxUpstreamTokens bounds the upstream tokens a MemoryStore
// keeps in all; at the bound the least recently updated is forgotten.
const DefaultMaxUpstreamTokens = 100_000

var _ UpstreamTokenStore = (*MemoryStore)(nil)

func cloneUpstream(t *UpstreamToken) *UpstreamToken {
	cp := *t
	cp.Sealed = slices.Clone(t.Sealed)
	return &cp
}

// PutUpstreamToken implements UpstreamTokenStore.
func (m *MemoryStore) PutUpstreamToken(_ context.Context, t *UpstreamToken, perSubject int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, revoked := m.revoked[t.Key]; revoked {
		return nil
	}
	if m.upstream == nil {
		m.upstream = map[string]*UpstreamToken{}
		m.upstreamOf = map[string]map[string]struct{}{}
	}
	if old, ok := m.upstream[t.Key]; ok {
		m.forgetUpstream(old)
	} else if len(m.upstream) >= DefaultMaxUpstreamTokens {
		m.sweepUpstream()
	}
	cp := cloneUpstream(t)
	m.upstream[t.Key] = cp
	keys := m.upstreamOf[t.Subject]
	if keys == nil {
		keys = map[string]struct{}{}
		m.upstreamOf[t.Subject] = keys
	}
	keys[t.Key] = struct{}{}
	if perSubject <= 0 {
		perSubject = DefaultUpstreamTokensPerSubject
	}
	for len(keys) > perSubject {
		var oldest *UpstreamToken
		for k := range keys {
			if u := m.upstream[k]; oldest == nil || u.Updated.Before(oldest.Updated) {
				oldest = u
			}
		}
		m.forgetUpstream(oldest)
	}
	return nil
}

// forgetUpstream forgets u. m.mu is held.
func (m *MemoryStore) forgetUpstream(u *UpstreamToken) {
	delete(m.upstream, u.Key)
	if keys := m.upstreamOf[u.Subject]; keys != nil {
		delete(keys, u.Key)
		if len(keys) == 0 {
			delete(m.upstreamOf, u.Subject)
		}
	}
}

// sweepUpstream forgets the expired upstream tokens, and when none was,
// the least recently updated one. m.mu is held.
func (m *MemoryStore) sweepUpstream() {
	now := m.now()
	var oldest *UpstreamToken
	n := len(m.upstream)
	for _, u := range m.upstream {
		if !now.Before(u.Expires) {
			m.forgetUpstream(u)
		} else if oldest == nil || u.Updated.Before(oldest.Updated) {
			oldest = u
		}
	}
	if len(m.upstream) == n && oldest != nil {
		m.forgetUpstream(oldest)
	}
}

// UpstreamToken implements UpstreamTokenStore.
func (m *MemoryStore) UpstreamToken(_ context.Context, key string) (*UpstreamToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.upstream[key]
	if !ok {
		return nil, ErrNotFound
	}
	if !m.now().Before(u.Expires) {
		m.forgetUpstream(u)
		return nil, ErrNotFound
	}
	return cloneUpstream(u), nil
}

// LatestUpstreamToken implements UpstreamTokenStore.
func (m *MemoryStore) LatestUpstreamToken(_ context.Context, subject string) (*UpstreamToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var latest *UpstreamToken
	now := m.now()
	for k := range m.upstreamOf[subject] {
		if u := m.upstream[k]; now.Before(u.Expires) && (latest == nil || u.Updated.After(latest.Updated)) {
			latest = u
		}
	}
	if latest == nil {
		return nil, ErrNotFound
	}
	return cloneUpstream(latest), nil
}

// DeleteUpstreamToken implements UpstreamTokenStore.
func (m *MemoryStore) DeleteUpstreamToken(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u, ok := m.upstream[key]; ok {
		m.forgetUpstream(u)
	}
	return nil
}
