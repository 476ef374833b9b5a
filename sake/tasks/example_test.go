package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// A task's life, as the dispatcher drives it: the work runs in its own
// goroutine and reports through the control; the client polls, answers
// and waits through the manager.
func Example() {
	m := tasks.New(tasks.MaxRunning(16), tasks.DefaultTTL(30*time.Minute))
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	const owner = "sub:alice"

	task, ctl, err := m.Create(ctx, owner, backend.TaskOptions{Tool: "book_trip"})
	if err != nil {
		fmt.Println(err)
		return
	}
	go func() {
		ctl.Progress("searching flights")
		answers, err := ctl.NeedInput(map[string]json.RawMessage{
			"seat": json.RawMessage(`{"method":"elicitation/create","params":{"message":"Window or aisle?"}}`),
		})
		if err != nil {
			return // cancelled, expired or shut down
		}
		var seat string
		_ = json.Unmarshal(answers["seat"], &seat)
		result, _ := json.Marshal(map[string]any{
			"content": []any{map[string]string{"type": "text", "text": "Booked, " + seat + " seat"}},
		})
		ctl.Complete(result, false)
	}()

	asked, _ := m.Wait(ctx, owner, task.ID, func(t *backend.Task) bool { return t.Status == sake.TaskInputRequired })
	for key := range asked.InputRequests {
		fmt.Println("asked:", key)
	}
	_ = m.Answer(ctx, owner, task.ID, map[string]json.RawMessage{"seat": json.RawMessage(`"window"`)})

	done, _ := m.Wait(ctx, owner, task.ID, (*backend.Task).Terminal)
	fmt.Println(done.Status, string(done.Result))
	// Output:
	// asked: seat
	// completed {"content":[{"text":"Booked, window seat","type":"text"}]}
}

// A server gets its tasks from a Manager; Shutdown ends them when the
// server stops.
func ExampleNew() {
	m := tasks.New(
		tasks.MaxRunning(32),
		tasks.DefaultTTL(time.Hour),
		tasks.MaxTTL(6*time.Hour),
		tasks.DefaultPollInterval(2*time.Second),
	)
	var _ backend.TaskManager = m // pass it with sake.Tasks(m)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx); err != nil {
		fmt.Println("some tasks were failed:", err)
	}
	// Output:
}
