package tasks

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake/backend"
)

// BenchmarkCreateAndComplete creates a task and completes it; the task is
// deleted after, so that the store stays small (the delete is measured
// too).
func BenchmarkCreateAndComplete(b *testing.B) {
	store := NewMemoryStore()
	m := newManager(b, WithStore(store))
	ctx := context.Background()
	result := json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		task, ctl, err := m.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
		if err != nil {
			b.Fatal(err)
		}
		ctl.Complete(result, false)
		_ = store.Delete(ctx, task.ID)
	}
}

// BenchmarkGet reads a task among 1000 others.
func BenchmarkGet(b *testing.B) {
	m := newManager(b, MaxRunning(0))
	ctx := context.Background()
	var id string
	for range 1000 {
		task, _, err := m.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
		if err != nil {
			b.Fatal(err)
		}
		id = task.ID
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Get(ctx, "sub:alice", id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetParallel reads one task from every processor.
func BenchmarkGetParallel(b *testing.B) {
	m := newManager(b)
	ctx := context.Background()
	task, _, err := m.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "t"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Get(ctx, "sub:alice", task.ID); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
