package saketest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// exporter is a long export that reports progress, asks for
// confirmation half-way, and can be cancelled.
type exporter struct {
	release chan struct{} // closed to let Export finish
	started chan struct{}
	once    sync.Once
}

func newExporter() *exporter {
	return &exporter{release: make(chan struct{}), started: make(chan struct{})}
}

func (e *exporter) Declare(d *sake.Declarations) {
	d.Tool("Export").Task(sake.TaskOptional).TaskTiming(time.Hour, 50*time.Millisecond)
	d.Tool("Confirmed").Task(sake.TaskRequired)
	d.Tool("Broken").Task(sake.TaskRequired)
	d.Tool("Quick").Task(sake.TaskOptional)
}

func (e *exporter) Export(ctx *sake.Context) (string, error) {
	e.once.Do(func() { close(e.started) })
	select {
	case <-e.release:
		return "exported", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (e *exporter) Confirmed(ctx *sake.Context) (string, error) {
	var f okForm
	action, err := ctx.Elicit("go_on", "Export everything?", &f)
	if err != nil {
		return "", err
	}
	return string(action) + " " + map[bool]string{true: "yes", false: "no"}[f.OK], nil
}

func (e *exporter) Broken(ctx *sake.Context) (string, error) {
	return "", errors.New("the disk is full")
}

func (e *exporter) Quick(ctx *sake.Context) (string, error) { return "quick", nil }

func taskServer(t *testing.T, opts ...tasks.Option) (*sake.Server, *tasks.Manager, *exporter) {
	t.Helper()
	m := tasks.New(opts...)
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	e := newExporter()
	return sake.MustNew(e, sake.Tasks(m)), m, e
}

func TestTaskRunsToCompletion(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, e := taskServer(t)
		c := saketest.Connect(t, srv, era, saketest.Subject("ana"), saketest.Scopes())
		_, task, err := c.CallToolAsync("export", nil)
		if err != nil || task == nil || task.Status != sake.TaskWorking {
			t.Fatalf("async call = %+v, %v", task, err)
		}
		got, err := c.GetTask(task.ID)
		if err != nil || got.Status != sake.TaskWorking {
			t.Fatalf("get while working = %+v, %v", got, err)
		}
		close(e.release)
		done, err := c.AwaitTask(task.ID, 10*time.Second)
		if err != nil || done.Status != sake.TaskCompleted || done.Result == nil || done.Result.Text() != "exported" {
			t.Fatalf("awaited = %+v, %v", done, err)
		}
		// CallTool follows a task to its result.
		res, err := c.CallTool("export", nil)
		if err != nil || res.Text() != "exported" {
			t.Fatalf("CallTool = %v, %v", res, err)
		}
	})
}

func TestTaskInputRequired(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, _ := taskServer(t)
		c := saketest.Connect(t, srv, era, saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
			return saketest.Accept(map[string]any{"ok": true})
		}))
		res, err := c.CallTool("confirmed", nil)
		if err != nil || res.Text() != "accept yes" {
			t.Fatalf("confirmed = %v, %v", res, err)
		}
		saketest.AssertAsked(t, c, "elicitation/create", map[string]any{"message": "Export everything?"})
	})
}

func TestTaskInputRequiredByHand(t *testing.T) {
	t.Parallel()
	srv, _, _ := taskServer(t)
	c := saketest.Connect(t, srv, saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult { return saketest.Decline() }))
	_, task, err := c.CallToolAsync("confirmed", nil)
	if err != nil || task == nil {
		t.Fatalf("%+v %v", task, err)
	}
	got, err := c.AwaitTask(task.ID, 10*time.Second)
	if err != nil || got.Status != sake.TaskInputRequired || len(got.InputRequests) != 1 {
		t.Fatalf("awaiting input: %+v, %v", got, err)
	}
	var key string
	for k := range got.InputRequests {
		key = k
	}
	if err := c.UpdateTask(task.ID, map[string]any{"unknown": 1}); err != nil {
		t.Fatalf("unknown key: %v", err)
	}
	if again, _ := c.GetTask(task.ID); again.Status != sake.TaskInputRequired {
		t.Errorf("an unknown key moved the task: %+v", again)
	}
	if err := c.UpdateTask(task.ID, map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"ok": false}}}); err != nil {
		t.Fatal(err)
	}
	var done *saketest.Task
	for done == nil || !done.Terminal() {
		if done, err = c.AwaitTask(task.ID, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if done.Status != sake.TaskCompleted || done.Result.Text() != "accept no" {
		t.Errorf("after the answer: %+v", done)
	}
}

func TestTaskCancel(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, e := taskServer(t)
		c := saketest.Connect(t, srv, era)
		_, task, err := c.CallToolAsync("export", nil)
		if err != nil {
			t.Fatal(err)
		}
		<-e.started
		if err := c.CancelTask(task.ID); err != nil {
			t.Fatal(err)
		}
		got, err := c.AwaitTask(task.ID, 10*time.Second)
		if err != nil || got.Status != sake.TaskCancelled {
			t.Fatalf("after cancel: %+v, %v", got, err)
		}
		// Cancelling a finished task: modern acks, legacy refuses with -32602.
		err = c.CancelTask(task.ID)
		var e2 *sake.Error
		if c.Session().Era == sake.EraModern && err != nil {
			t.Errorf("modern cancel of a finished task: %v", err)
		}
		if c.Session().Era == sake.EraLegacy && (!errors.As(err, &e2) || e2.Code != sake.CodeInvalidParams) {
			t.Errorf("legacy cancel of a finished task: %v", err)
		}
	})
}

func TestTaskFailures(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, _ := taskServer(t)
		c := saketest.Connect(t, srv, era)
		_, err := c.CallTool("broken", nil)
		var te *sake.ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Error(), "the disk is full") {
			t.Fatalf("broken = %v", err)
		}
		// A tool error completes the task in the modern era and fails it
		// in the legacy one.
		_, task, err := c.CallToolAsync("broken", nil)
		if err != nil || task == nil {
			t.Fatalf("async broken = %+v %v", task, err)
		}
		got, err := c.AwaitTask(task.ID, 10*time.Second)
		want := sake.TaskCompleted
		if c.Session().Era == sake.EraLegacy {
			want = sake.TaskFailed
		}
		if err != nil || got.Status != want {
			t.Errorf("status of a task whose tool failed = %+v %v, want %s", got, err, want)
		}
	})
}

func TestTasksBelongToTheirSubject(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, e := taskServer(t)
		ana := saketest.Connect(t, srv, era, saketest.Subject("ana"), saketest.Scopes())
		rui := saketest.Connect(t, srv, era, saketest.Subject("rui"), saketest.Scopes())
		_, task, err := ana.CallToolAsync("export", nil)
		if err != nil {
			t.Fatal(err)
		}
		notFound := func(what string, err error) {
			t.Helper()
			var e *sake.Error
			if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("%s of another subject's task: %v", what, err)
			}
		}
		_, err = rui.GetTask(task.ID)
		notFound("get", err)
		notFound("cancel", rui.CancelTask(task.ID))
		if rui.Session().Era == sake.EraModern {
			notFound("update", rui.UpdateTask(task.ID, map[string]any{"x": 1}))
		} else {
			_, err := rui.Request("tasks/result", map[string]any{"taskId": task.ID})
			notFound("result", err)
			raw, err := rui.Request("tasks/list", nil)
			if err != nil || strings.Contains(string(raw), task.ID) {
				t.Errorf("list shows another subject's task: %s %v", raw, err)
			}
			raw, err = ana.Request("tasks/list", nil)
			if err != nil || !strings.Contains(string(raw), task.ID) {
				t.Errorf("list hides the owner's task: %s %v", raw, err)
			}
		}
		_, err = rui.GetTask("00000000-0000-0000-0000-000000000000")
		notFound("get unknown", err)
		close(e.release)
		if got, err := ana.AwaitTask(task.ID, 10*time.Second); err != nil || got.Status != sake.TaskCompleted {
			t.Errorf("the owner's task: %+v %v", got, err)
		}
	})
}

func TestClientWithoutTheExtension(t *testing.T) {
	t.Parallel()
	srv, _, _ := taskServer(t)
	c := saketest.Connect(t, srv, saketest.WithoutTasks())
	// An optional task tool runs in the request.
	res, task, err := c.CallToolAsync("quick", nil)
	if err != nil || task != nil || res.Text() != "quick" {
		t.Fatalf("optional without the extension = %v %+v %v", res, task, err)
	}
	// A required one is refused with -32021 naming the extension.
	_, err = c.CallTool("broken", nil)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeMissingRequiredClientCapability || !strings.Contains(e.Error(), protocol.TaskExtension) {
		t.Fatalf("required without the extension: %v", err)
	}
	// tasks/* are refused too.
	if _, err := c.GetTask("x"); !errors.As(err, &e) || e.Code != sake.CodeMissingRequiredClientCapability {
		t.Errorf("tasks/get without the extension: %v", err)
	}
}

func TestTaskTTLExpiry(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		var mu sync.Mutex
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		srv, m, _ := taskServer(t, tasks.Clock(clock))
		c := saketest.Connect(t, srv, era)
		_, task, err := c.CallToolAsync("quick", nil)
		if err != nil || task == nil {
			t.Fatalf("%+v %v", task, err)
		}
		if got, err := c.AwaitTask(task.ID, 10*time.Second); err != nil || got.Status != sake.TaskCompleted {
			t.Fatalf("%+v %v", got, err)
		}
		mu.Lock()
		now = now.Add(48 * time.Hour)
		mu.Unlock()
		if _, err := m.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		var e *sake.Error
		if _, err := c.GetTask(task.ID); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("expired task: %v", err)
		}
	})
}

func TestTaskConcurrencyLimit(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, _, e := taskServer(t, tasks.MaxRunning(1))
		c := saketest.Connect(t, srv, era)
		_, first, err := c.CallToolAsync("export", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = c.CallToolAsync("export", nil)
		var re *sake.Error
		if !errors.As(err, &re) {
			t.Fatalf("second task beyond the limit: %v", err)
		}
		close(e.release)
		if got, err := c.AwaitTask(first.ID, 10*time.Second); err != nil || got.Status != sake.TaskCompleted {
			t.Fatalf("%+v %v", got, err)
		}
	})
}

func TestShutdownWithRunningTasks(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv, m, e := taskServer(t)
		c := saketest.Connect(t, srv, era)
		_, task, err := c.CallToolAsync("export", nil)
		if err != nil {
			t.Fatal(err)
		}
		<-e.started
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		got, err := m.Get(context.Background(), "", task.ID)
		if err != nil || !got.Terminal() {
			t.Errorf("after shutdown: %+v %v", got, err)
		}
	})
}

func TestLegacyClientWithoutTaskParam(t *testing.T) {
	t.Parallel()
	srv, _, _ := taskServer(t)
	c := saketest.Connect(t, srv, saketest.Legacy())
	// A required task tool called without params.task is refused.
	_, err := c.Request("tools/call", map[string]any{"name": "broken"})
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeMethodNotFound {
		t.Fatalf("required task without params.task: %v", err)
	}
	// An optional one runs in the request.
	raw, err := c.Request("tools/call", map[string]any{"name": "quick"})
	if err != nil || !strings.Contains(string(raw), `"quick"`) || strings.Contains(string(raw), `"task"`) {
		t.Fatalf("optional task without params.task: %s %v", raw, err)
	}
	// The legacy listing says which tools take tasks.
	raw, err = c.Request("tools/list", nil)
	if err != nil || !strings.Contains(string(raw), `"execution":{"taskSupport":"required"}`) {
		t.Errorf("tools/list: %s %v", raw, err)
	}
}
