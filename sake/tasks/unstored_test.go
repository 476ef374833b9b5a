package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// errStoreDown is what an outageStore returns while it is down.
var errStoreDown = errors.New("store unreachable")

// outageStore is a Store that refuses every call while down, as a
// database that cannot be reached, until told to recover. stored gets
// each terminal task an Update stores.
type outageStore struct {
	Store
	down   atomic.Bool
	stored chan *backend.Task
}

func newOutageStore(inner Store) *outageStore {
	return &outageStore{Store: inner, stored: make(chan *backend.Task, 16)}
}

func (s *outageStore) Create(ctx context.Context, t *backend.Task) error {
	if s.down.Load() {
		return errStoreDown
	}
	return s.Store.Create(ctx, t)
}

func (s *outageStore) Get(ctx context.Context, id string) (*backend.Task, error) {
	if s.down.Load() {
		return nil, errStoreDown
	}
	return s.Store.Get(ctx, id)
}

func (s *outageStore) Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	if s.down.Load() {
		return nil, errStoreDown
	}
	t, err := s.Store.Update(ctx, id, fn)
	if err == nil && t.Terminal() {
		s.stored <- cloneTask(t)
	}
	return t, err
}

func (s *outageStore) List(ctx context.Context, owner, after string, limit int) ([]*backend.Task, error) {
	if s.down.Load() {
		return nil, errStoreDown
	}
	return s.Store.List(ctx, owner, after, limit)
}

// waitStored returns the next terminal task the store took, failing t if
// none comes before the deadline.
func (s *outageStore) waitStored(t *testing.T) *backend.Task {
	t.Helper()
	select {
	case got := <-s.stored:
		return got
	case <-time.After(30 * time.Second):
		t.Fatal("the final state was never stored")
		return nil
	}
}

// A task whose work ends while the store is down is answered from the
// final state kept here, and that state is stored once the store is back.
func TestFinalStateKeptWhileStoreDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	inner := NewMemoryStore()
	store := newOutageStore(inner)
	m := newManager(t, WithStore(store), RetryBackoff(time.Millisecond, 20*time.Millisecond))
	other := newManager(t, WithStore(store)) // another replica, cut off too
	task, ctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{Tool: "report"})

	store.down.Store(true)
	result := json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)
	ctl.Complete(result, false)
	if ctl.Context().Err() == nil {
		t.Error("the work's context is still alive")
	}

	// The replica that ran it answers from the final state.
	got := mustGet(t, m, "sub:alice", task.ID)
	if got.Status != sake.TaskCompleted || string(got.Result) != string(result) || got.Tool != "report" {
		t.Fatalf("Get while the store is down: %+v", got)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if w, err := m.Wait(waitCtx, "sub:alice", task.ID, nil); err != nil || w.Status != sake.TaskCompleted {
		t.Fatalf("Wait while the store is down: %+v, %v", w, err)
	}
	page, _, err := m.List(ctx, "sub:alice", "", 0)
	if err == nil {
		t.Errorf("List while the store is down: %v", ids(page))
	}
	if c, err := m.Cancel(ctx, "sub:alice", task.ID); err != nil || c.Status != sake.TaskCompleted {
		t.Errorf("Cancel of the finished task: %+v, %v", c, err)
	}
	// Nobody else's.
	if _, err := m.Get(ctx, "sub:bob", task.ID); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Errorf("bob's Get: %v", err)
	}
	if m.Unstored() != 1 {
		t.Errorf("Unstored = %d, want 1", m.Unstored())
	}
	// Another replica that cannot reach the store says so, telling the
	// client to retry; it does not say working.
	_, err = other.Get(ctx, "sub:alice", task.ID)
	var rpc *sake.Error
	if !errors.As(err, &rpc) || rpc.Code != sake.CodeInternalError || !strings.Contains(rpc.Message, "retry") || !errors.Is(err, errStoreDown) {
		t.Errorf("the other replica's Get: %v", err)
	}
	// The store has nothing yet.
	if s, _ := inner.Get(ctx, task.ID); s.Status != sake.TaskWorking {
		t.Fatalf("stored while down: %+v", s)
	}

	store.down.Store(false)
	stored := store.waitStored(t)
	if stored.ID != task.ID || stored.Status != sake.TaskCompleted || string(stored.Result) != string(result) {
		t.Fatalf("stored: %+v", stored)
	}
	if got := mustGet(t, other, "sub:alice", task.ID); got.Status != sake.TaskCompleted {
		t.Errorf("the other replica after recovery: %+v", got)
	}
	waitUnstored(t, m, 0) // forgotten just after the store took it
}

// waitUnstored polls until m keeps n final states, failing t after a
// deadline: forgetting one raises no event.
func waitUnstored(t *testing.T, m *Manager, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for m.Unstored() != n {
		if time.Now().After(deadline) {
			t.Fatalf("Unstored = %d, want %d", m.Unstored(), n)
		}
		runtime.Gosched()
	}
}

// A failure kept while the store is down is stored too, and a task
// cancelled through another replica meanwhile stays cancelled.
func TestFinalStateYieldsToStoredEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	inner := NewMemoryStore()
	cut := newOutageStore(inner)
	m := newManager(t, WithStore(cut), RetryBackoff(time.Millisecond, 20*time.Millisecond))
	other := newManager(t, WithStore(inner)) // reaches the store
	failed, fctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	cancelled, cctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{})

	cut.down.Store(true)
	fctl.Fail(&sake.Error{Code: -32001, Message: "no luck"})
	cctl.Complete(json.RawMessage(`{"content":[]}`), false)
	if _, err := other.Cancel(ctx, "sub:alice", cancelled.ID); err != nil {
		t.Fatal(err)
	}
	cut.down.Store(false)
	if s := cut.waitStored(t); s.ID != failed.ID || s.Status != sake.TaskFailed || s.Error.Code != -32001 || s.StatusMessage != "no luck" {
		t.Fatalf("stored: %+v", s)
	}
	waitUnstored(t, m, 0)
	if got := mustGet(t, m, "sub:alice", cancelled.ID); got.Status != sake.TaskCancelled {
		t.Errorf("the task cancelled meanwhile: %+v", got)
	}
}

// MaxUnstored bounds the final states kept; Shutdown stores what is left.
func TestMaxUnstoredAndShutdownStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := newOutageStore(NewMemoryStore())
	m := New(WithStore(store), MaxUnstored(1), RetryBackoff(time.Hour, time.Hour))
	first, ctl1 := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	second, ctl2 := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	store.down.Store(true)
	ctl1.Complete(json.RawMessage(`{"content":[]}`), false)
	ctl2.Complete(json.RawMessage(`{"content":[]}`), false)
	if m.Unstored() != 1 {
		t.Fatalf("Unstored = %d, want the limit 1", m.Unstored())
	}
	if got := mustGet(t, m, "sub:alice", first.ID); got.Status != sake.TaskCompleted {
		t.Errorf("the kept one: %+v", got)
	}
	if _, err := m.Get(ctx, "sub:alice", second.ID); !errors.Is(err, errStoreDown) {
		t.Errorf("the one beyond the limit: %v", err)
	}
	// Shutdown with the store still down gives up when its context ends.
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Shutdown(done); err == nil {
		t.Error("Shutdown left a final state unstored and said nothing")
	}
	store.down.Store(false)
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if s := store.waitStored(t); s.ID != first.ID {
		t.Errorf("stored %s, want the kept one", s.ID)
	}
}

// refusingStore is up but refuses to store a completed task.
type refusingStore struct{ Store }

func (s refusingStore) Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	return s.Store.Update(ctx, id, func(t *backend.Task) error {
		if err := fn(t); err != nil {
			return err
		}
		if t.Status == sake.TaskCompleted {
			return errors.New("value out of range")
		}
		return nil
	})
}

// A final state the store refuses while it is up is not kept forever:
// the task is failed with a -32603 error instead, and Shutdown returns.
func TestFinalStateRefusedByUpStoreIsDropped(t *testing.T) {
	t.Parallel()
	m := New(WithStore(refusingStore{NewMemoryStore()}))
	task, ctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (unstored %d)", err, m.Unstored())
	}
	got := mustGet(t, m, "sub:alice", task.ID)
	if got.Status != sake.TaskFailed || got.Error == nil || got.Error.Code != sake.CodeInternalError {
		t.Errorf("after the refusal: %+v", got)
	}
}
