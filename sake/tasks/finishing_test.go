package tasks

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// slowFinalStore holds each Update that makes a task terminal until
// released: a final state on its way to a database.
type slowFinalStore struct {
	Store
	entered chan struct{}
	release chan struct{}
}

func (s *slowFinalStore) Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	return s.Store.Update(ctx, id, func(t *backend.Task) error {
		if err := fn(t); err != nil {
			return err
		}
		if t.Terminal() {
			s.entered <- struct{}{}
			<-s.release
		}
		return nil
	})
}

// Once the work of a task running here has ended, a read waits for its
// final state to be stored rather than answer "working" (a client
// polling at once would poll for as long as the write takes); another
// owner still finds nothing.
func TestReadWaitsForFinalStateBeingStored(t *testing.T) {
	t.Parallel()
	st := &slowFinalStore{Store: NewMemoryStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	m := New(WithStore(st))
	ctx := context.Background()
	defer m.Shutdown(ctx)
	task, ctl, err := m.Create(ctx, "sub:alice", backend.TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go ctl.Complete(json.RawMessage(`{"content":[]}`), false)
	<-st.entered
	got := make(chan *backend.Task, 1)
	go func() {
		t2, err := m.Get(ctx, "sub:alice", task.ID)
		if err != nil {
			t.Error(err)
		}
		got <- t2
	}()
	// A read whose context ends first gives up with that error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Get(cctx, "sub:alice", task.ID); err != context.Canceled {
		t.Errorf("a cancelled read: %v, want context.Canceled", err)
	}
	close(st.release)
	if t2 := <-got; t2 == nil || t2.Status != sake.TaskCompleted {
		t.Fatalf("the read during the write got %+v, want the completed task", t2)
	}
	if _, err := m.Get(ctx, "sub:bob", task.ID); err != backend.ErrTaskNotFound {
		t.Fatalf("bob: %v", err)
	}
}
