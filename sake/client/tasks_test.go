package client_test

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestTaskAwaited(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, k := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		_, task, err := c.StartTool(t.Context(), "job", nil)
		if err != nil || task == nil || task.Status != protocol.TaskWorking {
			t.Fatalf("start = %+v, %v", task, err)
		}
		got, err := c.GetTask(t.Context(), task.ID)
		if err != nil || got.Status != protocol.TaskWorking {
			t.Fatalf("get = %+v, %v", got, err)
		}
		// The poll interval is an hour: only a notification can wake the
		// wait in time (in the handshake era tasks/result waits).
		done := make(chan struct{})
		var res *protocol.ToolResult
		go func() {
			defer close(done)
			res, err = c.CallTool(t.Context(), "job", nil)
		}()
		k.RelOnce.Do(func() { close(k.Release) })
		<-done
		if err != nil || res.Text() != "job done" {
			t.Fatalf("awaited call = %v, %v", res, err)
		}
		if era == protocol.EraLegacy {
			// A 2025-11-25 server sends no task status notifications, so
			// AwaitTask would poll at the server's interval (an hour
			// here): let the first task finish before awaiting it.
			for {
				t1, err := c.GetTask(t.Context(), task.ID)
				if err != nil {
					t.Fatal(err)
				}
				if t1.Status != protocol.TaskWorking {
					break
				}
				runtime.Gosched()
			}
		}
		first, err := c.AwaitTask(t.Context(), task.ID)
		if err != nil || first.Status != protocol.TaskCompleted || first.Result == nil || first.Result.Text() != "job done" {
			t.Fatalf("await = %+v, %v", first, err)
		}
	})
}

func TestTaskByHand(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		_, task, err := c.StartTool(t.Context(), "job", nil)
		if err != nil || task == nil {
			t.Fatalf("start = %+v, %v", task, err)
		}
		if err := c.CancelTask(t.Context(), task.ID); err != nil {
			t.Fatalf("cancel: %v", err)
		}
		got, err := c.AwaitTask(t.Context(), task.ID)
		if err != nil || got.Status != protocol.TaskCancelled {
			t.Fatalf("after cancel = %+v, %v", got, err)
		}
		if _, err := c.GetTask(t.Context(), "no-such-task"); !isCode(err, protocol.CodeInvalidParams) {
			t.Fatalf("unknown task: %v", err)
		}
	})
}

func TestTaskAsks(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		answer := client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			return client.Accept(map[string]any{"ok": true}), nil
		})
		c := connect(t, tr, srv, append(opts, answer)...)
		res, err := c.CallTool(t.Context(), "confirm", nil)
		if err != nil || res.Text() != "accept confirmed" {
			t.Fatalf("confirm = %v, %v", res, err)
		}
	})
}

func TestTaskInputByHand(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newKitServer(t)
			c := connect(t, tr, srv, client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
				return nil, errors.New("not asked here")
			}))
			_, task, err := c.StartTool(t.Context(), "confirm", nil)
			if err != nil || task == nil {
				t.Fatalf("start = %+v, %v", task, err)
			}
			got, err := c.AwaitTask(t.Context(), task.ID)
			if err != nil || got.Status != protocol.TaskInputRequired || len(got.InputRequests) != 1 {
				t.Fatalf("await = %+v, %v", got, err)
			}
			answers := map[string]any{}
			for key := range got.InputRequests {
				answers[key] = map[string]any{"action": "accept", "content": map[string]any{"ok": false}}
			}
			if err := c.UpdateTask(t.Context(), task.ID, answers); err != nil {
				t.Fatalf("update: %v", err)
			}
			got, err = c.AwaitTask(t.Context(), task.ID)
			for err == nil && got.Status == protocol.TaskInputRequired {
				got, err = c.AwaitTask(t.Context(), task.ID)
			}
			if err != nil || got.Status != protocol.TaskCompleted || got.Result.Text() != "stopped" {
				t.Fatalf("after update = %+v, %v", got, err)
			}
		})
	}
}

func TestWithoutTasksTheCallRunsThrough(t *testing.T) {
	srv, k := newKitServer(t)
	c := connect(t, transports[0], srv, client.WithoutTasks())
	k.RelOnce.Do(func() { close(k.Release) })
	_, err := c.CallTool(t.Context(), "job", nil)
	if !isCode(err, protocol.CodeMissingRequiredClientCapability) {
		t.Fatalf("task tool without the extension: %v", err)
	}
}
