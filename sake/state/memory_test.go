package state_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/state"
)

func TestMemoryStoreVersionsAndConditions(t *testing.T) {
	ctx := context.Background()
	m := state.NewMemoryStore(0)
	if _, err := m.Load(ctx, "s", "k"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Load of nothing = %v, want ErrNotFound", err)
	}
	w := state.Write{Scope: "s", Key: "k", Value: []byte(`1`), TTL: time.Hour, IfVersion: 0}
	v, err := m.Save(ctx, w)
	if err != nil || v != 1 {
		t.Fatalf("first Save = %d, %v", v, err)
	}
	if _, err := m.Save(ctx, w); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save if absent over a value = %v, want ErrConflict", err)
	}
	w.IfVersion, w.Value = 7, []byte(`2`)
	if _, err := m.Save(ctx, w); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save at a wrong version = %v, want ErrConflict", err)
	}
	if e, _ := m.Load(ctx, "s", "k"); string(e.Value) != "1" || e.Version != 1 {
		t.Fatalf("a refused write changed the value: %s v%d", e.Value, e.Version)
	}
	w.IfVersion = 1
	if v, err := m.Save(ctx, w); err != nil || v != 2 {
		t.Fatalf("Save at the right version = %d, %v", v, err)
	}
	w.IfVersion, w.Value = state.AnyVersion, []byte(`3`)
	if v, err := m.Save(ctx, w); err != nil || v != 3 {
		t.Fatalf("unconditional Save = %d, %v", v, err)
	}
}

func TestMemoryStoreExpiry(t *testing.T) {
	ctx := context.Background()
	m := state.NewMemoryStore(0)
	now := time.Unix(1000, 0)
	m.SetClock(func() time.Time { return now })
	if _, err := m.Save(ctx, state.Write{Scope: "s", Key: "k", Value: []byte(`"x"`), TTL: time.Minute, IfVersion: state.AnyVersion}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(59 * time.Second)
	if _, err := m.Load(ctx, "s", "k"); err != nil {
		t.Fatalf("Load before expiry = %v", err)
	}
	now = now.Add(time.Second)
	if _, err := m.Load(ctx, "s", "k"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Load at expiry = %v, want ErrNotFound", err)
	}
	if m.Bytes() != 0 {
		t.Fatalf("an expired value still counts %d bytes", m.Bytes())
	}
	// An expired value is absent for a write on condition of absence.
	if _, err := m.Save(ctx, state.Write{Scope: "s", Key: "k", Value: []byte(`1`), TTL: time.Minute, IfVersion: 0}); err != nil {
		t.Fatalf("Save if absent after expiry = %v", err)
	}
}

func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	m := state.NewMemoryStore(100)
	now := time.Unix(1000, 0)
	m.SetClock(func() time.Time { return now })
	save := func(scope, key, value string, ttl time.Duration, maxBytes int64, maxKeys int) error {
		_, err := m.Save(ctx, state.Write{Scope: scope, Key: key, Value: []byte(value), TTL: ttl, IfVersion: state.AnyVersion, MaxScopeBytes: maxBytes, MaxScopeKeys: maxKeys})
		return err
	}
	if err := save("a", "k1", "0123456789", time.Hour, 30, 2); err != nil { // 12 bytes
		t.Fatal(err)
	}
	if err := save("a", "k2", "0123456789", time.Hour, 30, 2); err != nil { // 24 bytes
		t.Fatal(err)
	}
	if err := save("a", "k3", "0", time.Hour, 30, 2); !errors.Is(err, state.ErrFull) {
		t.Fatalf("a third key past MaxScopeKeys 2 = %v, want ErrFull", err)
	}
	if err := save("a", "k2", "0123456789abcdefghij", time.Hour, 30, 2); !errors.Is(err, state.ErrFull) {
		t.Fatalf("a rewrite past MaxScopeBytes 30 = %v, want ErrFull", err)
	}
	if err := save("a", "k2", "0123", time.Hour, 30, 2); err != nil {
		t.Fatalf("a rewrite that shrinks = %v", err)
	}
	if err := save("b", "kk", string(make([]byte, 40)), time.Second, 0, 0); err != nil { // 42 bytes, total 60
		t.Fatal(err)
	}
	if err := save("c", "kk", string(make([]byte, 50)), time.Hour, 0, 0); !errors.Is(err, state.ErrFull) {
		t.Fatalf("a write past the store's 100 bytes = %v, want ErrFull", err)
	}
	if m.Bytes() != 60 {
		t.Fatalf("refused writes changed the size: %d, want 60", m.Bytes())
	}
	now = now.Add(time.Second) // b's value expires and makes room
	if err := save("c", "kk", string(make([]byte, 50)), time.Hour, 0, 0); err != nil {
		t.Fatalf("a write once expired values make room = %v", err)
	}
	if err := m.Clear(ctx, "a"); err != nil || m.Bytes() != 52 {
		t.Fatalf("Clear = %v, size %d, want 52", err, m.Bytes())
	}
}
