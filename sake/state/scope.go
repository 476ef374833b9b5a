package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// maxUpdateTries bounds Update's retries under contention.
const maxUpdateTries = 16

// Scope is the state of one user, session or handle. Get, Set and Update
// read and write its values.
type Scope struct {
	state *State
	name  string
	ttl   time.Duration
}

// Name is the scope's key in the store: "u:" and the user's issuer,
// tenant and owner, "s:" and a session id, or "h:" and a handle's id.
func (sc *Scope) Name() string { return sc.name }

// WithTTL returns the scope with another lifetime for the values written
// through it.
func (sc *Scope) WithTTL(ttl time.Duration) *Scope {
	c := *sc
	if ttl > 0 {
		c.ttl = ttl
	}
	return &c
}

// Get reads a value into a T. found is false when the key holds no live
// value.
func Get[T any](ctx context.Context, sc *Scope, key string) (v T, found bool, err error) {
	e, err := sc.load(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	if err := json.Unmarshal(e.Value, &v); err != nil {
		return v, false, fmt.Errorf("state: the value of %q is not a %T: %w", key, v, err)
	}
	return v, true, nil
}

// Set writes a value, whatever the key held (the last write wins).
func Set[T any](ctx context.Context, sc *Scope, key string, v T) error {
	_, err := sc.save(ctx, key, v, AnyVersion)
	return err
}

// Update reads a value, passes it to fn (with found false and the zero T
// when the key holds none) and writes what fn returns, on condition that
// no other writer changed the key in between; if one did, it runs fn
// again on the newer value, up to 16 times before ErrConflict. An error
// from fn stops it and writes nothing.
func Update[T any](ctx context.Context, sc *Scope, key string, fn func(v T, found bool) (T, error)) (T, error) {
	var zero T
	for range maxUpdateTries {
		var cur T
		found := false
		version := int64(0)
		e, err := sc.load(ctx, key)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return zero, err
		default:
			if err := json.Unmarshal(e.Value, &cur); err != nil {
				return zero, fmt.Errorf("state: the value of %q is not a %T: %w", key, cur, err)
			}
			found, version = true, e.Version
		}
		next, err := fn(cur, found)
		if err != nil {
			return zero, err
		}
		if _, err := sc.save(ctx, key, next, version); err == nil {
			return next, nil
		} else if !errors.Is(err, ErrConflict) {
			return zero, err
		}
		if err := ctx.Err(); err != nil {
			return zero, err
		}
	}
	return zero, ErrConflict
}

// Delete removes a key.
func (sc *Scope) Delete(ctx context.Context, key string) error {
	if err := sc.checkKey(key); err != nil {
		return err
	}
	return sc.state.store.Delete(ctx, sc.name, key)
}

// Clear removes every key of the scope.
func (sc *Scope) Clear(ctx context.Context) error {
	return sc.state.store.Clear(ctx, sc.name)
}

func (sc *Scope) load(ctx context.Context, key string) (Entry, error) {
	if err := sc.checkKey(key); err != nil {
		return Entry{}, err
	}
	return sc.state.store.Load(ctx, sc.name, key)
}

func (sc *Scope) save(ctx context.Context, key string, v any, ifVersion int64) (int64, error) {
	if err := sc.checkKey(key); err != nil {
		return 0, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("state: the value of %q does not encode as JSON: %w", key, err)
	}
	lim := sc.state.limits
	if len(b) > lim.MaxValueBytes {
		return 0, fmt.Errorf("%w: the value of %q is %d bytes, over MaxValueBytes %d", ErrTooLarge, key, len(b), lim.MaxValueBytes)
	}
	return sc.state.store.Save(ctx, Write{
		Scope: sc.name, Key: key, Value: b, TTL: sc.ttl, IfVersion: ifVersion,
		MaxScopeBytes: lim.MaxScopeBytes, MaxScopeKeys: lim.MaxScopeKeys,
	})
}

func (sc *Scope) checkKey(key string) error {
	if key == "" {
		return errors.New("state: empty key")
	}
	if len(key) > sc.state.limits.MaxKeyBytes {
		return fmt.Errorf("%w: a key of %d bytes, over MaxKeyBytes %d", ErrTooLarge, len(key), sc.state.limits.MaxKeyBytes)
	}
	return nil
}
