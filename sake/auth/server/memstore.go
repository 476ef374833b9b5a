package server

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Default bounds of the in-memory store.
const (
	// DefaultMaxCredentials bounds the credentials (pending requests,
	// codes, tokens) a MemoryStore keeps at once.
	DefaultMaxCredentials = 200_000
	// DefaultMaxClients bounds the clients a MemoryStore keeps.
	DefaultMaxClients = 10_000
	// DefaultMaxConsents bounds the remembered consents.
	DefaultMaxConsents = 100_000
)

// MemoryStore is the in-memory Store: the default, for one process.
// Credentials are forgotten after they expire; revoked families are
// remembered as long as one of their credentials could still be valid.
// It is a RevocationList: it denies each revoked access token it stored
// until a minute after the token expires, and sweeps the expired ones
// with the credentials.
type MemoryStore struct {
	now func() time.Time
	// ndenied is len(denied), read without the lock: the verifier's
	// check costs one atomic load while nothing is revoked.
	ndenied atomic.Int64

	mu          sync.Mutex
	clients     map[string]*Client
	dynamic     int
	unused      []string       // dynamic clients never authorized, oldest first (some stale)
	unusedFrom  map[string]int // address -> its clients never authorized
	creds       map[string]*Credential
	families    map[string]map[string]struct{} // family -> hashes
	revoked     map[string]time.Time           // family -> until when to remember
	denied      map[string]time.Time           // revoked access token hash -> its expiry
	consents    map[[2]string][]string
	upstream    map[string]*UpstreamToken      // by key
	upstreamOf  map[string]map[string]struct{} // subject -> keys
	maxCreds    int
	maxClients  int
	maxConsents int
}

// MemoryOption configures a MemoryStore.
type MemoryOption func(*MemoryStore)

// MemoryLimits sets the bounds (0 keeps a default): credentials, clients,
// consents.
func MemoryLimits(credentials, clients, consents int) MemoryOption {
	return func(m *MemoryStore) {
		if credentials > 0 {
			m.maxCreds = credentials
		}
		if clients > 0 {
			m.maxClients = clients
		}
		if consents > 0 {
			m.maxConsents = consents
		}
	}
}

// MemoryClock sets the store's time source (default time.Now). For tests.
func MemoryClock(now func() time.Time) MemoryOption {
	return func(m *MemoryStore) {
		if now != nil {
			m.now = now
		}
	}
}

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore(opts ...MemoryOption) *MemoryStore {
	m := &MemoryStore{
		now:         time.Now,
		clients:     map[string]*Client{},
		unusedFrom:  map[string]int{},
		creds:       map[string]*Credential{},
		families:    map[string]map[string]struct{}{},
		revoked:     map[string]time.Time{},
		denied:      map[string]time.Time{},
		consents:    map[[2]string][]string{},
		maxCreds:    DefaultMaxCredentials,
		maxClients:  DefaultMaxClients,
		maxConsents: DefaultMaxConsents,
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

func cloneClient(c *Client) *Client {
	cp := *c
	cp.RedirectURIs = slices.Clone(c.RedirectURIs)
	cp.GrantTypes = slices.Clone(c.GrantTypes)
	cp.Scopes = slices.Clone(c.Scopes)
	cp.ExchangeFrom = slices.Clone(c.ExchangeFrom)
	return &cp
}

func cloneCredential(c *Credential) *Credential {
	cp := *c
	g := &cp.Grant
	g.Scopes = slices.Clone(g.Scopes)
	g.Resource = slices.Clone(g.Resource)
	g.ACRValues = slices.Clone(g.ACRValues)
	g.Prompt = slices.Clone(g.Prompt)
	g.AMR = slices.Clone(g.AMR)
	return &cp
}

// PutClient implements Store.
func (m *MemoryStore) PutClient(_ context.Context, c *Client) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, exists := m.clients[c.ID]
	if !exists && len(m.clients) >= m.maxClients {
		return ErrStoreFull
	}
	if exists {
		m.untrack(old)
	}
	m.track(c)
	m.clients[c.ID] = cloneClient(c)
	return nil
}

// unusedClient reports whether c is a dynamic client never authorized.
func unusedClient(c *Client) bool { return c != nil && c.Dynamic && !c.Authorized }

// track counts a client about to be stored. m.mu is held.
func (m *MemoryStore) track(c *Client) {
	if c.Dynamic {
		m.dynamic++
	}
	if unusedClient(c) {
		m.unused = append(m.unused, c.ID)
		m.unusedFrom[c.RegisteredFrom]++
	}
}

// untrack uncounts a client about to be replaced or forgotten; its entry
// in m.unused turns stale. m.mu is held.
func (m *MemoryStore) untrack(c *Client) {
	if c.Dynamic {
		m.dynamic--
	}
	if unusedClient(c) {
		if m.unusedFrom[c.RegisteredFrom]--; m.unusedFrom[c.RegisteredFrom] <= 0 {
			delete(m.unusedFrom, c.RegisteredFrom)
		}
	}
}

// oldestUnused returns the oldest client never authorized, dropping the
// stale entries before it. m.mu is held.
func (m *MemoryStore) oldestUnused() (*Client, bool) {
	for len(m.unused) > 0 {
		if c := m.clients[m.unused[0]]; unusedClient(c) {
			return c, true
		}
		m.unused = m.unused[1:]
	}
	m.unused = nil // let the drained backing array go
	return nil, false
}

// evict forgets a client. m.mu is held.
func (m *MemoryStore) evict(c *Client) {
	m.untrack(c)
	delete(m.clients, c.ID)
}

// RegisterClient implements Store.
func (m *MemoryStore) RegisterClient(_ context.Context, c *Client, lim RegistrationLimits) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.clients[c.ID]; exists {
		return errors.New("authserver: a client with this id is already registered")
	}
	if lim.UnusedTTL > 0 {
		cutoff := c.Created.Add(-lim.UnusedTTL)
		for old, ok := m.oldestUnused(); ok && old.Created.Before(cutoff); old, ok = m.oldestUnused() {
			m.evict(old)
		}
	}
	if lim.PerAddress > 0 && m.unusedFrom[c.RegisteredFrom] >= lim.PerAddress {
		return ErrTooManyRegistrations
	}
	for (lim.Total > 0 && m.dynamic >= lim.Total) || len(m.clients) >= m.maxClients {
		old, ok := m.oldestUnused()
		if !ok {
			return ErrStoreFull
		}
		m.evict(old)
	}
	cp := cloneClient(c)
	cp.Dynamic = true
	m.track(cp)
	m.clients[c.ID] = cp
	return nil
}

// ClientAuthorized implements Store.
func (m *MemoryStore) ClientAuthorized(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.clients[id]; unusedClient(c) {
		m.untrack(c)
		c.Authorized = true
		m.track(c)
	}
	return nil
}

// Client implements Store.
func (m *MemoryStore) Client(_ context.Context, id string) (*Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clients[id]
	if !ok {
		return nil, ErrNotFound
	}
	return cloneClient(c), nil
}

// CountClients implements Store.
func (m *MemoryStore) CountClients(context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dynamic, nil
}

// PutCredential implements Store.
func (m *MemoryStore) PutCredential(_ context.Context, c *Credential) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if _, exists := m.creds[c.Hash]; !exists && len(m.creds) >= m.maxCreds {
		m.sweep(now)
		if len(m.creds) >= m.maxCreds {
			return ErrStoreFull
		}
	}
	cp := cloneCredential(c)
	if until, ok := m.revoked[c.Family]; ok && c.Family != "" {
		cp.Revoked = true
		if c.Expires.After(until) {
			m.revoked[c.Family] = c.Expires
		}
	}
	m.creds[c.Hash] = cp
	if cp.Revoked && cp.Kind == KindAccess {
		m.deny(c.Hash, cp.Expires)
	}
	if c.Family != "" {
		f := m.families[c.Family]
		if f == nil {
			f = map[string]struct{}{}
			m.families[c.Family] = f
		}
		f[c.Hash] = struct{}{}
	}
	return nil
}

// sweep forgets expired credentials and revoked-family records. m.mu is
// held.
func (m *MemoryStore) sweep(now time.Time) {
	for h, c := range m.creds {
		if !now.Before(c.Expires) {
			m.forget(h, c)
		}
	}
	for f, until := range m.revoked {
		if !now.Before(until) {
			delete(m.revoked, f)
		}
	}
	m.sweepDenied(now)
}

// sweepDenied forgets the denied access tokens that expired more than
// deniedGrace ago. m.mu is held.
func (m *MemoryStore) sweepDenied(now time.Time) {
	for h, exp := range m.denied {
		if now.After(exp.Add(deniedGrace)) {
			delete(m.denied, h)
		}
	}
	m.ndenied.Store(int64(len(m.denied)))
}

func (m *MemoryStore) forget(hash string, c *Credential) {
	delete(m.creds, hash)
	if f := m.families[c.Family]; f != nil {
		delete(f, hash)
		if len(f) == 0 {
			delete(m.families, c.Family)
		}
	}
}

// live returns the unexpired credential with hash. m.mu is held.
func (m *MemoryStore) live(hash string) (*Credential, bool) {
	c, ok := m.creds[hash]
	if !ok {
		return nil, false
	}
	if !m.now().Before(c.Expires) {
		m.forget(hash, c)
		return nil, false
	}
	return c, true
}

// Credential implements Store.
func (m *MemoryStore) Credential(_ context.Context, hash string) (*Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.live(hash)
	if !ok {
		return nil, ErrNotFound
	}
	return cloneCredential(c), nil
}

// Consume implements Store.
func (m *MemoryStore) Consume(_ context.Context, hash string) (*Credential, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.live(hash)
	if !ok {
		return nil, ErrNotFound
	}
	before := cloneCredential(c)
	c.Used = true
	return before, nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(_ context.Context, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.creds[hash]; ok {
		m.forget(hash, c)
	}
	return nil
}

// RevokeFamily implements Store.
func (m *MemoryStore) RevokeFamily(_ context.Context, family string) error {
	if family == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	until := m.now().Add(time.Hour)
	for h := range m.families[family] {
		c := m.creds[h]
		c.Revoked = true
		if c.Kind == KindAccess {
			m.deny(h, c.Expires)
		}
		if c.Expires.After(until) {
			until = c.Expires
		}
	}
	if len(m.revoked) >= m.maxCreds {
		m.sweep(m.now())
	}
	m.revoked[family] = until
	if u, ok := m.upstream[family]; ok {
		m.forgetUpstream(u)
	}
	return nil
}

// deniedGrace is how long past its expiry a revoked access token stays
// denied: longer than a verifier's leeway for exp (auth.DefaultClockSkew).
const deniedGrace = time.Minute

// deny records a revoked access token until deniedGrace after it
// expires. The entries come from stored credentials (at most
// MaxCredentials at a time) and live a token's lifetime: an expired one
// is swept when they are as many as the credentials. m.mu is held.
func (m *MemoryStore) deny(hash string, expires time.Time) {
	if _, ok := m.denied[hash]; !ok && len(m.denied) >= m.maxCreds {
		m.sweepDenied(m.now())
	}
	m.denied[hash] = expires
	m.ndenied.Store(int64(len(m.denied)))
}

// AccessRevoked implements RevocationList: one atomic load while nothing
// is revoked.
func (m *MemoryStore) AccessRevoked(_ context.Context, hash string) (bool, error) {
	if m.ndenied.Load() == 0 {
		return false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, denied := m.denied[hash]
	return denied, nil
}

// PutConsent implements Store.
func (m *MemoryStore) PutConsent(_ context.Context, subject, clientID string, scopes []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{subject, clientID}
	if _, ok := m.consents[k]; !ok && len(m.consents) >= m.maxConsents {
		return ErrStoreFull
	}
	m.consents[k] = slices.Clone(scopes)
	return nil
}

// Consent implements Store.
func (m *MemoryStore) Consent(_ context.Context, subject, clientID string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.consents[[2]string{subject, clientID}]
	if !ok {
		return nil, ErrNotFound
	}
	return slices.Clone(s), nil
}
