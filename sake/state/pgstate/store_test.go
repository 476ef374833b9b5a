package pgstate_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/state"
	"github.com/sakemcp/sake-go/sake/state/pgstate"
)

type notes struct{ st *state.State }

type NoteArgs struct {
	Text string `json:"text"`
}

func (n *notes) Remember(ctx *sake.Context, a NoteArgs) (string, error) {
	u, err := n.st.User(ctx)
	if err != nil {
		return "", err
	}
	return "kept", state.Set(ctx, u, "note", a.Text)
}

func (n *notes) Recall(ctx *sake.Context) (string, error) {
	u, err := n.st.User(ctx)
	if err != nil {
		return "", err
	}
	v, found, err := state.Get[string](ctx, u, "note")
	if !found {
		return "(nothing)", err
	}
	return v, err
}

// replicas returns two States on one database, as two replicas of a
// server would have: each its own pool and store, one shared key.
func replicas(t *testing.T) (*state.State, *state.State) {
	t.Helper()
	url, schema, pool := pgtest.Schema(t)
	ctx := context.Background()
	key := []byte("0123456789abcdef0123456789abcdef")
	a, err := pgstate.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pgstate.New(ctx, pgtest.Pool(t, url, schema))
	if err != nil {
		t.Fatal(err)
	}
	return state.MustNew(state.Config{Store: a, Key: key}), state.MustNew(state.Config{Store: b, Key: key})
}

func TestValueWrittenOnOneReplicaIsReadOnAnother(t *testing.T) {
	one, two := replicas(t)
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		who := append(opts, saketest.Subject(t.Name()), saketest.Scopes("notes"))
		a := saketest.Connect(t, &notes{st: one}, who...)
		b := saketest.Connect(t, &notes{st: two}, who...)
		if res, err := a.CallTool("remember", map[string]any{"text": "from one"}); err != nil || res.Text() != "kept" {
			t.Fatalf("remember on replica one = %v, %v", res, err)
		}
		if res, err := b.CallTool("recall", nil); err != nil || res.Text() != "from one" {
			t.Fatalf("recall on replica two = %v, %v", res, err)
		}
		stranger := saketest.Connect(t, &notes{st: two}, append(opts, saketest.Subject(t.Name()+"-other"), saketest.Scopes("notes"))...)
		if res, err := stranger.CallTool("recall", nil); err != nil || res.Text() != "(nothing)" {
			t.Fatalf("another user's recall = %v, %v", res, err)
		}
	})
	// A handle made on one replica is good on the other.
	id := &sake.Identity{Subject: "h"}
	h, sc, err := one.NewHandleFor(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := state.Set(context.Background(), sc, "k", 42); err != nil {
		t.Fatal(err)
	}
	sc2, err := two.HandleFor(id, h)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := state.Get[int](context.Background(), sc2, "k"); v != 42 {
		t.Fatalf("the handle's value on replica two = %d", v)
	}
}

func TestUpdatesFromTwoReplicasAreNeverLost(t *testing.T) {
	one, two := replicas(t)
	ctx := context.Background()
	id := &sake.Identity{Subject: "counter"}
	var landed atomic.Int64
	var wg sync.WaitGroup
	for i := range 6 {
		st := one
		if i%2 == 1 {
			st = two
		}
		sc, _ := st.UserOf(id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				_, err := state.Update(ctx, sc, "n", func(n int, _ bool) (int, error) { return n + 1, nil })
				switch {
				case err == nil:
					landed.Add(1)
				case !errors.Is(err, state.ErrConflict):
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	sc, _ := one.UserOf(id)
	n, _, err := state.Get[int](ctx, sc, "n")
	if err != nil || int64(n) != landed.Load() || n == 0 {
		t.Fatalf("n = %d (%v), %d updates reported success", n, err, landed.Load())
	}
}

func TestStoreConditionsBoundsAndExpiry(t *testing.T) {
	_, _, pool := pgtest.Schema(t)
	ctx := context.Background()
	s, err := pgstate.New(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	w := state.Write{Scope: "s", Key: "k", Value: []byte(`1`), TTL: time.Hour, MaxScopeKeys: 2, MaxScopeBytes: 40}
	if v, err := s.Save(ctx, w); err != nil || v != 1 {
		t.Fatalf("Save = %d, %v", v, err)
	}
	if _, err := s.Save(ctx, w); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save if absent over a value = %v", err)
	}
	w.IfVersion = 5
	if _, err := s.Save(ctx, w); !errors.Is(err, state.ErrConflict) {
		t.Fatalf("Save at a wrong version = %v", err)
	}
	w.IfVersion, w.Key = state.AnyVersion, "k2"
	if _, err := s.Save(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.Key = "k3"
	if _, err := s.Save(ctx, w); !errors.Is(err, state.ErrFull) {
		t.Fatalf("a third key past MaxScopeKeys = %v", err)
	}
	w.Key, w.Value = "k2", make([]byte, 64)
	if _, err := s.Save(ctx, w); !errors.Is(err, state.ErrFull) {
		t.Fatalf("a value past MaxScopeBytes = %v", err)
	}
	if e, err := s.Load(ctx, "s", "k2"); err != nil || string(e.Value) != "1" {
		t.Fatalf("a refused write changed the value: %q, %v", e.Value, err)
	}
	// A value whose TTL has passed is gone for reads and for bounds.
	if _, err := s.Save(ctx, state.Write{Scope: "t", Key: "gone", Value: []byte(`1`), TTL: time.Microsecond, IfVersion: state.AnyVersion}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE sake_state SET expires_at = now() - interval '1 second' WHERE scope = 't'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "t", "gone"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Load of an expired value = %v", err)
	}
	if n, err := s.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if err := s.Clear(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "s", "k"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Load after Clear = %v", err)
	}
}
