package state

import (
	"context"
	"errors"
	"time"
)

// AnyVersion is the Write.IfVersion of an unconditional write.
const AnyVersion int64 = -1

// Entry is a stored value with its version: the number of writes its key
// has had, which a conditional write compares.
type Entry struct {
	// Value is the value's JSON.
	Value []byte
	// Version is 1 after the first write of a key and grows by one with
	// each write.
	Version int64
}

// Write is one write to a Store.
type Write struct {
	// Scope and Key name the value.
	Scope, Key string
	// Value is the value's JSON.
	Value []byte
	// TTL is how long the value lives after this write.
	TTL time.Duration
	// IfVersion makes the write conditional: AnyVersion writes whatever
	// is there, 0 only when the key holds no live value, n only when it
	// holds version n. A write whose condition fails returns ErrConflict.
	IfVersion int64
	// MaxScopeBytes and MaxScopeKeys bound the scope after the write: the
	// sum of its live keys' and values' lengths, and their number. A write
	// that would pass either returns ErrFull. Zero means no bound.
	MaxScopeBytes int64
	MaxScopeKeys  int
}

// Store keeps the values of every scope. MemoryStore is the default;
// sake/state/pgstate keeps them in PostgreSQL for replicas. A Store is used
// by many goroutines at once.
type Store interface {
	// Load returns the live value of a key, or ErrNotFound.
	Load(ctx context.Context, scope, key string) (Entry, error)
	// Save writes a value and returns its new version, or ErrConflict,
	// or ErrFull, writing nothing.
	Save(ctx context.Context, w Write) (int64, error)
	// Delete removes a key; deleting an absent key is not an error.
	Delete(ctx context.Context, scope, key string) error
	// Clear removes every key of a scope.
	Clear(ctx context.Context, scope string) error
}

var (
	// ErrNotFound is what a Store's Load returns for a key with no live
	// value. Get reports it as found == false.
	ErrNotFound = errors.New("state: no value for this key")
	// ErrConflict is a conditional write whose key was changed by another
	// writer first.
	ErrConflict = errors.New("state: the value was changed by another writer; read it again and retry")
	// ErrFull is a write that would pass the scope's bounds (Limits) or
	// the store's: delete values, or raise the limit.
	ErrFull = errors.New("state: the scope is full; delete values or raise state.Limits")
	// ErrTooLarge is a key or value longer than Limits allows.
	ErrTooLarge = errors.New("state: key or value too large; see state.Limits")
	// ErrNoIdentity is a user-scoped access by a caller without an
	// identity: serve the tool behind authorization (plug.Authorization),
	// or use a handle.
	ErrNoIdentity = errors.New("state: the caller is anonymous, so it has no user state; sign callers in (plug.Authorization) or use state.NewHandle")
	// ErrNoSession is a session-scoped access outside a 2025-11-25
	// session: the 2026-07-28 era has none.
	ErrNoSession = errors.New("state: this call belongs to no session (the 2026-07-28 era has none); use the user scope or a handle, which work in both eras")
	// ErrBadHandle is a handle that was not made by this server for this
	// caller: forged, altered, truncated, or someone else's.
	ErrBadHandle = errors.New("state: the handle is not valid for this caller; ask the tool that made it for a new one")
)
