package usertokens

import (
	"container/list"
	"context"
	"sync"
)

// DefaultMaxUsers is Memory's bound on users when given 0: 100,000.
const DefaultMaxUsers = 100_000

// DefaultMaxPerUser is Memory's bound on one user's tokens when given 0:
// 64, the most entries of one gateway.
const DefaultMaxPerUser = 64

// Memory returns a backend that keeps sealed tokens in this process, for
// at most maxUsers users (0: DefaultMaxUsers) and maxPerUser resources per
// user (0: DefaultMaxPerUser). Past a bound it forgets the least recently
// used user, or that user's least recently saved token: they sign in
// again. Tokens do not survive a restart, and replicas do not share them
// (see pgusertokens).
func Memory(maxUsers, maxPerUser int) Backend {
	if maxUsers <= 0 {
		maxUsers = DefaultMaxUsers
	}
	if maxPerUser <= 0 {
		maxPerUser = DefaultMaxPerUser
	}
	return &memory{maxUsers: maxUsers, maxPerUser: maxPerUser, users: map[string]*list.Element{}, lru: list.New()}
}

type memory struct {
	mu                   sync.Mutex
	maxUsers, maxPerUser int
	users                map[string]*list.Element // of *memUser
	lru                  *list.List               // front: most recently used
}

type memUser struct {
	name   string
	tokens map[string][]byte
	order  []string // resources, least recently saved first
}

func (m *memory) Get(_ context.Context, user, resource string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.users[user]
	if !ok {
		return nil, nil
	}
	m.lru.MoveToFront(e)
	b := e.Value.(*memUser).tokens[resource]
	if b == nil {
		return nil, nil
	}
	return append([]byte(nil), b...), nil
}

func (m *memory) Put(_ context.Context, user, resource string, sealed []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.users[user]
	if !ok {
		for m.lru.Len() >= m.maxUsers {
			last := m.lru.Back()
			delete(m.users, last.Value.(*memUser).name)
			m.lru.Remove(last)
		}
		e = m.lru.PushFront(&memUser{name: user, tokens: map[string][]byte{}})
		m.users[user] = e
	}
	m.lru.MoveToFront(e)
	u := e.Value.(*memUser)
	if _, had := u.tokens[resource]; had {
		u.forget(resource)
	}
	for len(u.order) >= m.maxPerUser {
		u.forget(u.order[0])
	}
	u.tokens[resource] = append([]byte(nil), sealed...)
	u.order = append(u.order, resource)
	return nil
}

func (u *memUser) forget(resource string) {
	delete(u.tokens, resource)
	for i, r := range u.order {
		if r == resource {
			u.order = append(u.order[:i], u.order[i+1:]...)
			break
		}
	}
}

func (m *memory) Delete(_ context.Context, user, resource string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.users[user]; ok {
		u := e.Value.(*memUser)
		u.forget(resource)
		if len(u.tokens) == 0 {
			delete(m.users, user)
			m.lru.Remove(e)
		}
	}
	return nil
}

func (m *memory) DeleteUser(_ context.Context, user string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.users[user]; ok {
		delete(m.users, user)
		m.lru.Remove(e)
	}
	return nil
}
