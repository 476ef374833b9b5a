package tasks

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// workStore records, for each write, whether its context was marked as a
// report of the task's work (FromWork).
type workStore struct {
	Store
	mu     sync.Mutex
	writes []string
}

func (s *workStore) record(ctx context.Context, what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if FromWork(ctx) {
		what += " (work)"
	}
	s.writes = append(s.writes, what)
}

func (s *workStore) Create(ctx context.Context, t *backend.Task) error {
	s.record(ctx, "create")
	return s.Store.Create(ctx, t)
}

func (s *workStore) Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	var status string
	t, err := s.Store.Update(ctx, id, func(t *backend.Task) error {
		if err := fn(t); err != nil {
			return err
		}
		status = t.Status
		return nil
	})
	if err == nil {
		s.record(ctx, status)
	}
	return t, err
}

func (s *workStore) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.writes
	s.writes = nil
	return w
}

// The store tells a task's own reports (progress, questions, its end) from
// the changes a client asks for (creating, answering, cancelling), which
// the client is answered with at once; the client's own request context
// is never marked.
func TestStoreTellsWorkFromClient(t *testing.T) {
	st := &workStore{Store: NewMemoryStore()}
	m := New(WithStore(st))
	defer m.Shutdown(context.Background()) //nolint:errcheck // every task ends here
	ctx := context.Background()

	task, ctl, err := m.Create(ctx, "alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if FromWork(ctx) || FromWork(ctl.Context()) {
		t.Fatal("the caller's context or the work's own context is marked as a report of the work")
	}
	if err := ctl.Progress("half way"); err != nil {
		t.Fatal(err)
	}
	asked := make(chan map[string]json.RawMessage, 1)
	go func() {
		got, _ := ctl.NeedInput(map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)})
		asked <- got
	}()
	if _, err := m.Wait(ctx, "alice", task.ID, func(t *backend.Task) bool { return t.Status == sake.TaskInputRequired }); err != nil {
		t.Fatal(err)
	}
	if err := m.Answer(ctx, "alice", task.ID, map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept"}`)}); err != nil {
		t.Fatal(err)
	}
	<-asked
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)

	other, _, err := m.Create(ctx, "alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Cancel(ctx, "alice", other.ID); err != nil {
		t.Fatal(err)
	}
	// A cancellation of a terminal task changes nothing: no write.
	if _, err := m.Cancel(ctx, "alice", task.ID); err != nil {
		t.Fatal(err)
	}

	want := []string{"create", "working (work)", "input_required (work)", "working", "completed (work)", "create", "cancelled"}
	got := st.take()
	if len(got) != len(want) {
		t.Fatalf("writes %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("writes %q, want %q", got, want)
		}
	}
}
