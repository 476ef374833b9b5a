package gateway

import (
	"context"
	"errors"
	"sync"
	"time"
)

// OpenSignIn is a sign-in to a per-user entry the gateway began and whose
// callback has not come back, as a SignInStore keeps it.
type OpenSignIn struct {
	// State is the state parameter of its authorization request: the
	// callback carrying it completes this sign-in alone.
	State string
	// User is who was asked to sign in: the token goes to them.
	User string
	// Entry names the per-user entry (its name in the configuration).
	Entry string
	// Sealed is the sign-in's secret half (its PKCE verifier and client),
	// sealed with the vault's key and bound to State, User and Entry: a
	// store sees no secret.
	Sealed []byte
	// Expires is when its link stops working.
	Expires time.Time
}

// ErrTooManySignIns is returned (wrapped) by a SignInStore's Add past its
// bounds: the sign-in is not kept, and the caller tries again later.
var ErrTooManySignIns = errors.New("gateway: too many sign-ins open")

// SignInStore keeps the sign-ins the per-user entries began until their
// callback comes back, and how each ended until its waiter learns it. The
// in-memory one (MemorySignIns) serves one process; a shared one (package
// pgsignins) lets the callback land on another replica than the one that
// began the sign-in, behind a balancer without affinity. Implementations
// are safe for concurrent use and bound what they keep.
type SignInStore interface {
	// Add keeps s, unless s.User already has a sign-in open (not
	// expired, not taken) at s.Entry: Add then returns that one and keeps
	// nothing. Past the store's bounds it returns ErrTooManySignIns.
	Add(ctx context.Context, s OpenSignIn) (OpenSignIn, error)
	// Open returns user's sign-in open at entry, or nil.
	Open(ctx context.Context, user, entry string) (*OpenSignIn, error)
	// Take removes and returns the open sign-in of state, once: nil (and
	// no error) when it is unknown, already taken or expired.
	Take(ctx context.Context, state string) (*OpenSignIn, error)
	// Finish records how the sign-in s, taken, ended: failure is empty
	// when the user's token was kept, else why it was not.
	Finish(ctx context.Context, s OpenSignIn, failure string) error
	// Outcome reports whether the sign-in of state ended and, if so, its
	// failure ("" when it succeeded), forgetting the record: a second
	// Outcome reports nothing.
	Outcome(ctx context.Context, state string) (ended bool, failure string, err error)
	// Forget removes user's sign-in open at entry, if any: its link no
	// longer works.
	Forget(ctx context.Context, user, entry string) error
}

// DefaultMaxSignInsPerUser bounds the sign-ins one user holds open at
// once in MemorySignIns (and pgsignins): 64, one at each of as many
// per-user entries.
const DefaultMaxSignInsPerUser = 64

// EndedSignInTTL is how long a store keeps how a sign-in ended for its
// waiter, who asks at least every second: one minute, or less when the
// sign-in would have expired sooner.
const EndedSignInTTL = time.Minute

// MemorySignIns returns a SignInStore in this process's memory holding
// at most maxOpen sign-ins open (0: DefaultMaxPendingSignIns), at most
// maxPerUser of one user (0: DefaultMaxSignInsPerUser), and at most
// maxOpen ended and not yet learned (past it, a waiter learns from the
// vault that the token is kept, or times out). Expired ones are
// forgotten as others are added. A gateway without PendingSignIns keeps
// its sign-ins in one, bound by SignIns' maxPending.
func MemorySignIns(maxOpen, maxPerUser int) SignInStore {
	if maxOpen <= 0 {
		maxOpen = DefaultMaxPendingSignIns
	}
	if maxPerUser <= 0 {
		maxPerUser = DefaultMaxSignInsPerUser
	}
	return &memorySignIns{maxOpen: maxOpen, maxPerUser: maxPerUser,
		byState: map[string]*OpenSignIn{}, open: map[userEntry]*OpenSignIn{}, perUser: map[string]int{}, ended: map[string]endedSignIn{}}
}

type memorySignIns struct {
	mu                  sync.Mutex
	maxOpen, maxPerUser int
	byState             map[string]*OpenSignIn
	open                map[userEntry]*OpenSignIn
	perUser             map[string]int // open ones by user
	ended               map[string]endedSignIn
}

type endedSignIn struct {
	failure string
	expires time.Time
}

type userEntry struct{ user, entry string }

func (m *memorySignIns) sweepLocked(now time.Time) {
	for _, s := range m.byState {
		if now.After(s.Expires) {
			m.removeLocked(s)
		}
	}
	for state, e := range m.ended {
		if now.After(e.expires) {
			delete(m.ended, state)
		}
	}
}

func (m *memorySignIns) removeLocked(s *OpenSignIn) {
	delete(m.byState, s.State)
	k := userEntry{s.User, s.Entry}
	if m.open[k] == s {
		delete(m.open, k)
	}
	if m.perUser[s.User]--; m.perUser[s.User] <= 0 {
		delete(m.perUser, s.User)
	}
}

func (m *memorySignIns) Add(_ context.Context, s OpenSignIn) (OpenSignIn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if o := m.open[userEntry{s.User, s.Entry}]; o != nil && now.Before(o.Expires) {
		return *o, nil
	}
	m.sweepLocked(now)
	if _, taken := m.byState[s.State]; taken || len(m.byState) >= m.maxOpen || m.perUser[s.User] >= m.maxPerUser {
		return OpenSignIn{}, ErrTooManySignIns
	}
	if o := m.open[userEntry{s.User, s.Entry}]; o != nil {
		m.removeLocked(o)
	}
	kept := s
	kept.Sealed = append([]byte(nil), s.Sealed...)
	m.byState[s.State] = &kept
	m.open[userEntry{s.User, s.Entry}] = &kept
	m.perUser[s.User]++
	return s, nil
}

func (m *memorySignIns) Open(_ context.Context, user, entry string) (*OpenSignIn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.open[userEntry{user, entry}]
	if o == nil || time.Now().After(o.Expires) {
		return nil, nil
	}
	s := *o
	return &s, nil
}

func (m *memorySignIns) Take(_ context.Context, state string) (*OpenSignIn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.byState[state]
	if o == nil {
		return nil, nil
	}
	m.removeLocked(o)
	if time.Now().After(o.Expires) {
		return nil, nil
	}
	s := *o
	return &s, nil
}

func (m *memorySignIns) Finish(_ context.Context, s OpenSignIn, failure string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if len(m.ended) >= m.maxOpen {
		m.sweepLocked(now)
		if len(m.ended) >= m.maxOpen {
			return nil // its waiter learns from the vault, or times out
		}
	}
	expires := now.Add(EndedSignInTTL)
	if s.Expires.Before(expires) {
		expires = s.Expires
	}
	m.ended[s.State] = endedSignIn{failure: failure, expires: expires}
	return nil
}

func (m *memorySignIns) Outcome(_ context.Context, state string) (bool, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.ended[state]
	if !ok {
		return false, "", nil
	}
	delete(m.ended, state)
	return true, e.failure, nil
}

func (m *memorySignIns) Forget(_ context.Context, user, entry string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o := m.open[userEntry{user, entry}]; o != nil {
		m.removeLocked(o)
	}
	return nil
}
