package taskstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// StoreContract checks that the stores newStore returns keep the
// tasks.Store contract. Each subtest calls newStore for a fresh, empty store
// (a store over a database should give each one its own schema or table
// prefix) and runs in parallel with the others.
func StoreContract(t *testing.T, newStore func(t *testing.T) tasks.Store) {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	task := func(id, owner string, created time.Time) *backend.Task {
		return &backend.Task{
			ID: id, Owner: owner, Tool: "tool", Status: sake.TaskWorking,
			CreatedAt: created, LastUpdatedAt: created,
			TTL: time.Hour, PollInterval: time.Second,
		}
	}

	t.Run("CreateGet", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		in := task("a", "alice", base)
		in.InputRequests = map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)}
		in.Result = json.RawMessage(`{"content":[]}`)
		in.Error = &sake.Error{Code: sake.CodeInternalError, Message: "boom"}
		if err := s.Create(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		assertTaskEqual(t, got, in)
	})

	t.Run("CreateRejects", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, task("a", "alice", base)); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, task("a", "bob", base)); !errors.Is(err, tasks.ErrTaskExists) {
			t.Errorf("duplicate id: got %v, want tasks.ErrTaskExists", err)
		}
		if err := s.Create(ctx, task("", "alice", base)); err == nil {
			t.Error("empty id: no error")
		}
		got, err := s.Get(ctx, "a")
		if err != nil || got.Owner != "alice" {
			t.Errorf("after a rejected duplicate: %+v, %v", got, err)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if _, err := s.Get(ctx, "x"); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Get: %v", err)
		}
		if _, err := s.Update(ctx, "x", func(*backend.Task) error { return nil }); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Update: %v", err)
		}
		if err := s.Delete(ctx, "x"); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Delete: %v", err)
		}
	})

	t.Run("Copies", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		in := task("a", "alice", base)
		in.InputRequests = map[string]json.RawMessage{"q": json.RawMessage(`{"x":1}`)}
		in.Result = json.RawMessage(`{"y":2}`)
		in.Error = &sake.Error{Code: 1, Message: "m"}
		if err := s.Create(ctx, in); err != nil {
			t.Fatal(err)
		}
		// Change what was passed in.
		in.Status = "mutated"
		in.InputRequests["q"][2] = 'X'
		in.InputRequests["z"] = nil
		in.Result[2] = 'Y'
		in.Error.Message = "mutated"
		// Change what Get returned.
		got, _ := s.Get(ctx, "a")
		got.InputRequests["q"][3] = '9'
		delete(got.InputRequests, "q")
		got.Error.Code = 2
		// Change what Update returned, and what fn was given after the
		// fact.
		var seen *backend.Task
		up, err := s.Update(ctx, "a", func(t *backend.Task) error {
			seen = t
			t.StatusMessage = "hi"
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		up.Result[3] = 'Z'
		seen.StatusMessage = "mutated"
		// Change what List returned.
		list, _ := s.List(ctx, "alice", "", 0)
		list[0].InputRequests["q"] = nil

		want := task("a", "alice", base)
		want.StatusMessage = "hi"
		want.InputRequests = map[string]json.RawMessage{"q": json.RawMessage(`{"x":1}`)}
		want.Result = json.RawMessage(`{"y":2}`)
		want.Error = &sake.Error{Code: 1, Message: "m"}
		got, _ = s.Get(ctx, "a")
		assertTaskEqual(t, got, want)
	})

	t.Run("UpdateStoresWhatFnPutIn", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, task("a", "alice", base)); err != nil {
			t.Fatal(err)
		}
		result := json.RawMessage(`{"r":1}`)
		reqs := map[string]json.RawMessage{"k": json.RawMessage(`{}`)}
		if _, err := s.Update(ctx, "a", func(t *backend.Task) error {
			t.Result, t.InputRequests = result, reqs
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		result[2] = 'X'
		reqs["other"] = nil
		got, _ := s.Get(ctx, "a")
		if string(got.Result) != `{"r":1}` || len(got.InputRequests) != 1 {
			t.Errorf("stored state reachable through fn's values: %s %v", got.Result, got.InputRequests)
		}
	})

	t.Run("UpdateAborts", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, task("a", "alice", base)); err != nil {
			t.Fatal(err)
		}
		stop := errors.New("stop")
		_, err := s.Update(ctx, "a", func(t *backend.Task) error {
			t.Status = sake.TaskFailed
			return stop
		})
		if err != stop {
			t.Errorf("Update returned %v, want fn's error unchanged", err)
		}
		got, _ := s.Get(ctx, "a")
		if got.Status != sake.TaskWorking {
			t.Errorf("aborted update stored: status %s", got.Status)
		}
		up, err := s.Update(ctx, "a", func(t *backend.Task) error {
			if t.Status != sake.TaskWorking {
				return fmt.Errorf("fn saw status %s", t.Status)
			}
			t.Status = sake.TaskCompleted
			return nil
		})
		if err != nil || up.Status != sake.TaskCompleted {
			t.Errorf("Update: %+v, %v", up, err)
		}
	})

	t.Run("UpdateAtomic", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, task("a", "alice", base)); err != nil {
			t.Fatal(err)
		}
		const n = 50
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, err := s.Update(ctx, "a", func(t *backend.Task) error {
					if t.InputRequests == nil {
						t.InputRequests = map[string]json.RawMessage{}
					}
					t.InputRequests[fmt.Sprint(i)] = json.RawMessage(`{}`)
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, _ := s.Get(ctx, "a")
		if len(got.InputRequests) != n {
			t.Errorf("%d of %d concurrent updates kept", len(got.InputRequests), n)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, id := range []string{"a", "b"} {
			if err := s.Create(ctx, task(id, "alice", base)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, "a"); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		list, err := s.List(ctx, "alice", "", 0)
		if err != nil || len(list) != 1 || list[0].ID != "b" {
			t.Errorf("List after Delete: %v, %v", ids(list), err)
		}
		if err := s.Delete(ctx, "a"); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("second Delete: %v", err)
		}
		if err := s.Create(ctx, task("a", "bob", base)); err != nil {
			t.Errorf("Create reusing a deleted id: %v", err)
		}
	})

	t.Run("List", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// Created out of order, and two in the same instant.
		for _, c := range []struct {
			id    string
			owner string
			at    int
		}{{"t3", "alice", 3}, {"t1", "alice", 1}, {"b1", "bob", 5}, {"t4", "alice", 4}, {"t2", "alice", 2}, {"t4b", "alice", 4}} {
			if err := s.Create(ctx, task(c.id, c.owner, base.Add(time.Duration(c.at)*time.Second))); err != nil {
				t.Fatal(err)
			}
		}
		all, err := s.List(ctx, "alice", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 5 {
			t.Fatalf("List: %v", ids(all))
		}
		for i := 1; i < len(all); i++ {
			if all[i].CreatedAt.After(all[i-1].CreatedAt) {
				t.Errorf("not newest first: %v", ids(all))
			}
		}
		if got := ids(all[2:]); fmt.Sprint(got) != "[t3 t2 t1]" {
			t.Errorf("List order: %v", ids(all))
		}
		// Pages of two follow the same order, ties included.
		var paged []*backend.Task
		after := ""
		for range 10 {
			page, err := s.List(ctx, "alice", after, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > 2 {
				t.Fatalf("page of %d", len(page))
			}
			if len(page) == 0 {
				break
			}
			paged = append(paged, page...)
			after = page[len(page)-1].ID
		}
		if fmt.Sprint(ids(paged)) != fmt.Sprint(ids(all)) {
			t.Errorf("pages %v, all %v", ids(paged), ids(all))
		}
		if list, err := s.List(ctx, "carol", "", 0); err != nil || len(list) != 0 {
			t.Errorf("another owner's list: %v, %v", ids(list), err)
		}
		if _, err := s.List(ctx, "alice", "nope", 2); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("unknown after: %v", err)
		}
		if _, err := s.List(ctx, "alice", "b1", 2); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("another owner's task as after: %v", err)
		}
	})

	t.Run("Expired", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		forever := task("forever", "alice", base)
		forever.TTL = 0
		short := task("short", "alice", base)
		short.TTL = time.Minute
		long := task("long", "bob", base)
		long.TTL = time.Hour
		for _, x := range []*backend.Task{forever, short, long} {
			if err := s.Create(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		check := func(now time.Time, limit int, want ...string) {
			t.Helper()
			got, err := s.Expired(ctx, now, limit)
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			for _, id := range got {
				set[id] = true
			}
			if len(got) != len(want) {
				t.Errorf("Expired(%v, %d) = %v, want %v", now.Sub(base), limit, got, want)
			}
			for _, id := range want {
				if !set[id] {
					t.Errorf("Expired(%v, %d) = %v, want %v", now.Sub(base), limit, got, want)
				}
			}
		}
		check(base.Add(time.Minute), 0) // at the TTL, not yet before now
		check(base.Add(time.Minute+time.Millisecond), 0, "short")
		check(base.Add(48*time.Hour), 0, "short", "long")
		if got, _ := s.Expired(ctx, base.Add(48*time.Hour), 1); len(got) != 1 {
			t.Errorf("limit 1: %v", got)
		}
	})
}

func ids(ts []*backend.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func assertTaskEqual(t *testing.T, got, want *backend.Task) {
	t.Helper()
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) || !got.CreatedAt.Equal(want.CreatedAt) || !got.LastUpdatedAt.Equal(want.LastUpdatedAt) {
		t.Errorf("task\n got %s\nwant %s", gj, wj)
	}
}
