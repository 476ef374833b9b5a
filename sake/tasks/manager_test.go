package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// clock is a settable Clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock {
	return &clock{now: time.Date(2026, 7, 28, 10, 0, 0, 123456789, time.FixedZone("CEST", 2*3600))}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newManager returns a manager shut down when the test ends.
func newManager(t testing.TB, opts ...Option) *Manager {
	t.Helper()
	m := New(opts...)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = m.Shutdown(ctx)
	})
	return m
}

func mustCreate(t testing.TB, m *Manager, owner string, opts backend.TaskOptions) (*backend.Task, backend.TaskControl) {
	t.Helper()
	task, ctl, err := m.Create(context.Background(), owner, opts)
	if err != nil {
		t.Fatal(err)
	}
	return task, ctl
}

func mustGet(t testing.TB, m *Manager, owner, id string) *backend.Task {
	t.Helper()
	task, err := m.Get(context.Background(), owner, id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func status(s string) func(*backend.Task) bool {
	return func(t *backend.Task) bool { return t.Status == s }
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestCreateGet(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	task, ctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{Tool: "report", TTL: 2 * time.Hour, PollInterval: 5 * time.Second})
	if !uuidV4.MatchString(task.ID) {
		t.Errorf("id %q is not a v4 UUID", task.ID)
	}
	want := clk.Now().UTC().Truncate(time.Millisecond)
	if !task.CreatedAt.Equal(want) || task.CreatedAt.Location() != time.UTC || !task.LastUpdatedAt.Equal(want) {
		t.Errorf("times %v %v, want %v UTC", task.CreatedAt, task.LastUpdatedAt, want)
	}
	if task.Owner != "sub:alice" || task.Tool != "report" || task.Status != sake.TaskWorking ||
		task.TTL != 2*time.Hour || task.PollInterval != 5*time.Second {
		t.Errorf("task %+v", task)
	}
	assertTaskEqual(t, mustGet(t, m, "sub:alice", task.ID), task)
	if ctl.Context().Err() != nil {
		t.Error("context of a new task ended")
	}
	if m.Running() != 1 {
		t.Errorf("Running = %d", m.Running())
	}
	if other, _ := mustCreate(t, m, "sub:alice", backend.TaskOptions{}); other.ID == task.ID {
		t.Error("two tasks with one id")
	}
}

func TestCreateKeepsContextValues(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	type key struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	_, ctl, err := m.Create(ctx, "", backend.TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if ctl.Context().Value(key{}) != "v" || ctl.Context().Err() != nil {
		t.Error("the task's context should keep the values but not the cancellation of Create's")
	}
}

func TestTTLAndPollDefaults(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts []Option
		ask  time.Duration
		want time.Duration
	}{
		{"default", nil, 0, time.Hour},
		{"asked", nil, 10 * time.Minute, 10 * time.Minute},
		{"capped", nil, 48 * time.Hour, 24 * time.Hour},
		{"negative asked", nil, -time.Second, time.Hour},
		{"own default", []Option{DefaultTTL(time.Minute)}, 0, time.Minute},
		{"no expiry", []Option{DefaultTTL(-1)}, 0, 0},
		{"own cap", []Option{MaxTTL(time.Minute)}, time.Hour, time.Minute},
		{"no cap", []Option{MaxTTL(0)}, 100 * time.Hour, 100 * time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := newManager(t, c.opts...)
			task, _ := mustCreate(t, m, "", backend.TaskOptions{TTL: c.ask})
			if task.TTL != c.want {
				t.Errorf("TTL %v, want %v", task.TTL, c.want)
			}
		})
	}
	m := newManager(t, DefaultPollInterval(3*time.Second))
	task, _ := mustCreate(t, m, "", backend.TaskOptions{})
	if task.PollInterval != 3*time.Second {
		t.Errorf("PollInterval %v", task.PollInterval)
	}
	if task, _ := mustCreate(t, newManager(t), "", backend.TaskOptions{}); task.PollInterval != time.Second {
		t.Errorf("default PollInterval %v", task.PollInterval)
	}
}

func TestOwnership(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newManager(t)
	task, ctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	anon, _ := mustCreate(t, m, "", backend.TaskOptions{})

	for _, owner := range []string{"sub:bob", ""} {
		if _, err := m.Get(ctx, owner, task.ID); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("%q Get: %v", owner, err)
		}
		if err := m.Answer(ctx, owner, task.ID, map[string]json.RawMessage{"k": nil}); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("%q Answer: %v", owner, err)
		}
		if _, err := m.Cancel(ctx, owner, task.ID); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("%q Cancel: %v", owner, err)
		}
		if _, err := m.Wait(ctx, owner, task.ID, nil); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("%q Wait: %v", owner, err)
		}
	}
	if list, _, err := m.List(ctx, "sub:bob", "", 0); err != nil || len(list) != 0 {
		t.Errorf("bob's list: %v, %v", ids(list), err)
	}
	if list, _, err := m.List(ctx, "", "", 0); err != nil || len(list) != 1 || list[0].ID != anon.ID {
		t.Errorf("anonymous list: %v, %v", ids(list), err)
	}
	if _, err := m.Get(ctx, "sub:alice", anon.ID); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Errorf("alice sees the anonymous task: %v", err)
	}
	mustGet(t, m, "", anon.ID)
	if _, err := m.Get(ctx, "sub:alice", "no-such-id"); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if got := mustGet(t, m, "sub:alice", task.ID); got.Status != sake.TaskWorking || ctl.Context().Err() != nil {
		t.Errorf("others' calls changed the task: %+v", got)
	}
}

// needInput runs ctl.NeedInput in a goroutine and returns where its
// outcome arrives.
type inputOutcome struct {
	answers map[string]json.RawMessage
	err     error
}

func needInput(ctl backend.TaskControl, reqs map[string]json.RawMessage) <-chan inputOutcome {
	ch := make(chan inputOutcome, 1)
	go func() {
		a, err := ctl.NeedInput(reqs)
		ch <- inputOutcome{a, err}
	}()
	return ch
}

func TestNeedInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	reqs := map[string]json.RawMessage{
		"name":  json.RawMessage(`{"method":"elicitation/create","params":{}}`),
		"color": json.RawMessage(`{"method":"elicitation/create","params":{"x":1}}`),
	}
	outcome := needInput(ctl, reqs)

	got, err := m.Wait(ctx, "o", task.ID, status(sake.TaskInputRequired))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.InputRequests) != 2 || string(got.InputRequests["color"]) != string(reqs["color"]) {
		t.Errorf("input requests %v", got.InputRequests)
	}

	// A partial answer, with an unknown key: the task still waits, for
	// the other key only.
	clk.Add(time.Second)
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{
		"name": json.RawMessage(`"Luca"`), "bogus": json.RawMessage(`1`),
	}); err != nil {
		t.Fatal(err)
	}
	got = mustGet(t, m, "o", task.ID)
	if got.Status != sake.TaskInputRequired || len(got.InputRequests) != 1 || got.InputRequests["color"] == nil {
		t.Errorf("after a partial answer: %s %v", got.Status, got.InputRequests)
	}
	if !got.LastUpdatedAt.Equal(clk.Now().UTC().Truncate(time.Millisecond)) {
		t.Errorf("LastUpdatedAt %v not moved by the answer", got.LastUpdatedAt)
	}
	select {
	case o := <-outcome:
		t.Fatalf("NeedInput returned after a partial answer: %v", o)
	default:
	}

	// Answering "name" again changes nothing; "color" completes.
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{
		"name": json.RawMessage(`"Other"`), "color": json.RawMessage(`"blue"`),
	}); err != nil {
		t.Fatal(err)
	}
	o := <-outcome
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(o.answers) != 2 || string(o.answers["name"]) != `"Luca"` || string(o.answers["color"]) != `"blue"` {
		t.Errorf("answers %v", o.answers)
	}
	got = mustGet(t, m, "o", task.ID)
	if got.Status != sake.TaskWorking || got.InputRequests != nil {
		t.Errorf("after the last answer: %s %v", got.Status, got.InputRequests)
	}

	// A second round with new keys.
	outcome = needInput(ctl, map[string]json.RawMessage{"again": json.RawMessage(`{}`)})
	if _, err := m.Wait(ctx, "o", task.ID, status(sake.TaskInputRequired)); err != nil {
		t.Fatal(err)
	}
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{"again": json.RawMessage(`true`)}); err != nil {
		t.Fatal(err)
	}
	if o := <-outcome; o.err != nil || string(o.answers["again"]) != "true" || len(o.answers) != 1 {
		t.Errorf("second round: %v", o)
	}
	ctl.Complete(json.RawMessage(`{}`), false)
	if _, err := ctl.NeedInput(map[string]json.RawMessage{"late": nil}); !errors.Is(err, ErrTaskFinished) {
		t.Errorf("NeedInput after Complete: %v", err)
	}
}

func TestAnswerIgnored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})

	// Not awaiting input: ignored without error.
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{"k": nil}); err != nil {
		t.Errorf("Answer to a working task: %v", err)
	}
	outcome := needInput(ctl, map[string]json.RawMessage{"k": json.RawMessage(`{}`)})
	before, err := m.Wait(ctx, "o", task.ID, status(sake.TaskInputRequired))
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Second)
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{"unknown": json.RawMessage(`1`)}); err != nil {
		t.Errorf("Answer with unknown keys: %v", err)
	}
	if err := m.Answer(ctx, "o", task.ID, nil); err != nil {
		t.Errorf("empty Answer: %v", err)
	}
	assertTaskEqual(t, mustGet(t, m, "o", task.ID), before)
	if _, err := m.Cancel(ctx, "o", task.ID); err != nil {
		t.Fatal(err)
	}
	if o := <-outcome; !errors.Is(o.err, context.Canceled) {
		t.Errorf("NeedInput of a cancelled task: %v", o)
	}
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{"k": nil}); err != nil {
		t.Errorf("Answer to a cancelled task: %v", err)
	}
}

func TestNeedInputNothing(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	if a, err := ctl.NeedInput(nil); err != nil || len(a) != 0 {
		t.Errorf("NeedInput(nil) = %v, %v", a, err)
	}
	if got := mustGet(t, m, "o", task.ID); got.Status != sake.TaskWorking {
		t.Errorf("status %s", got.Status)
	}
}

func TestCancelWorking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newManager(t)
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	ctl.Progress("half way")
	got, err := m.Cancel(ctx, "o", task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != sake.TaskCancelled || got.StatusMessage != "Cancelled by the client" {
		t.Errorf("Cancel returned %s %q", got.Status, got.StatusMessage)
	}
	select {
	case <-ctl.Context().Done():
	default:
		t.Fatal("the context did not end")
	}
	if cause := context.Cause(ctl.Context()); !errors.Is(cause, errCancelled) {
		t.Errorf("cause %v", cause)
	}
	if m.Running() != 0 {
		t.Errorf("Running = %d after Cancel", m.Running())
	}
	ctl.Complete(json.RawMessage(`{"late":true}`), false)
	ctl.Fail(&sake.Error{Code: 1, Message: "late"})
	ctl.Progress("late")
	if _, err := ctl.NeedInput(map[string]json.RawMessage{"k": nil}); !errors.Is(err, ErrTaskFinished) {
		t.Errorf("NeedInput after Cancel: %v", err)
	}
	assertTaskEqual(t, mustGet(t, m, "o", task.ID), got)
	again, err := m.Cancel(ctx, "o", task.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertTaskEqual(t, again, got)
}

func TestCancelAfterCompletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	ctl.Progress("almost")
	ctl.Complete(json.RawMessage(`{"content":[],"isError":true}`), true)
	done := mustGet(t, m, "o", task.ID)
	if done.Status != sake.TaskCompleted || !done.ResultIsError || string(done.Result) != `{"content":[],"isError":true}` || done.StatusMessage != "" {
		t.Errorf("completed task %+v", done)
	}
	if ctl.Context().Err() == nil {
		t.Error("context still live after Complete")
	}
	clk.Add(time.Second)
	got, err := m.Cancel(ctx, "o", task.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertTaskEqual(t, got, done)
	assertTaskEqual(t, mustGet(t, m, "o", task.ID), done)
}

func TestFail(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	e := &sake.Error{Code: sake.CodeInvalidParams, Message: "bad thing", Data: "d"}
	ctl.Fail(e)
	e.Message = "changed later"
	got := mustGet(t, m, "o", task.ID)
	if got.Status != sake.TaskFailed || got.Error == nil || got.Error.Code != sake.CodeInvalidParams ||
		got.Error.Message != "bad thing" || got.StatusMessage != "bad thing" {
		t.Errorf("failed task %+v %+v", got, got.Error)
	}
	ctl.Complete(json.RawMessage(`{}`), false)
	if got := mustGet(t, m, "o", task.ID); got.Status != sake.TaskFailed {
		t.Errorf("Complete after Fail: %s", got.Status)
	}
	if m.Running() != 0 {
		t.Errorf("Running = %d", m.Running())
	}

	task, ctl = mustCreate(t, m, "o", backend.TaskOptions{})
	ctl.Fail(nil)
	if got := mustGet(t, m, "o", task.ID); got.Error == nil || got.Error.Code != sake.CodeInternalError {
		t.Errorf("Fail(nil): %+v", got.Error)
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	clk.Add(1500 * time.Millisecond)
	ctl.Progress("step 2 of 3")
	got := mustGet(t, m, "o", task.ID)
	if got.StatusMessage != "step 2 of 3" || got.Status != sake.TaskWorking || got.LastUpdatedAt.Sub(got.CreatedAt) != 1500*time.Millisecond {
		t.Errorf("after Progress: %+v", got)
	}
}

func TestWaitWakes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New()
	blocked := make(chan struct{}, 8)
	m.waitHook = func() { blocked <- struct{}{} }
	t.Cleanup(func() { _ = m.Shutdown(ctx) })
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})

	type result struct {
		task *backend.Task
		err  error
	}
	res := make(chan result, 1)
	go func() {
		t, err := m.Wait(ctx, "o", task.ID, nil)
		res <- result{t, err}
	}()
	<-blocked
	ctl.Progress("not yet") // a change that does not satisfy until
	<-blocked
	ctl.Complete(json.RawMessage(`{"ok":1}`), false)
	r := <-res
	if r.err != nil || r.task.Status != sake.TaskCompleted || string(r.task.Result) != `{"ok":1}` {
		t.Errorf("Wait: %+v, %v", r.task, r.err)
	}
	// A terminal task: at once.
	if got, err := m.Wait(ctx, "o", task.ID, nil); err != nil || got.Status != sake.TaskCompleted {
		t.Errorf("Wait on a finished task: %v %v", got, err)
	}
	m.mu.Lock()
	left := len(m.watchers)
	m.mu.Unlock()
	if left != 0 {
		t.Errorf("%d watchers left", left)
	}
}

func TestWaitContext(t *testing.T) {
	t.Parallel()
	m := New()
	blocked := make(chan struct{}, 1)
	m.waitHook = func() { blocked <- struct{}{} }
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	defer ctl.Complete(nil, false)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := m.Wait(ctx, "o", task.ID, nil)
		errc <- err
	}()
	<-blocked
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Wait: %v", err)
	}
}

func TestWaitDeleted(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m := New(Clock(clk.Now))
	blocked := make(chan struct{}, 1)
	m.waitHook = func() { blocked <- struct{}{} }
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	task, _ := mustCreate(t, m, "o", backend.TaskOptions{TTL: time.Minute})

	errc := make(chan error, 1)
	go func() {
		_, err := m.Wait(context.Background(), "o", task.ID, nil)
		errc <- err
	}()
	<-blocked
	clk.Add(2 * time.Minute)
	if n, err := m.Sweep(context.Background()); n != 1 || err != nil {
		t.Fatalf("Sweep = %d, %v", n, err)
	}
	if err := <-errc; !errors.Is(err, backend.ErrTaskNotFound) {
		t.Errorf("Wait on a deleted task: %v", err)
	}
}

func TestSubscribe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newManager(t)
	got := make(chan *backend.Task, 16)
	stop := m.Subscribe("o", func(t *backend.Task) { got <- t })
	others := make(chan *backend.Task, 16)
	defer m.Subscribe("other", func(t *backend.Task) { others <- t })()

	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	ctl.Progress("one")
	if n := <-got; n.ID != task.ID || n.StatusMessage != "one" {
		t.Errorf("notification %+v", n)
	}
	outcome := needInput(ctl, map[string]json.RawMessage{"a": json.RawMessage(`{}`), "b": json.RawMessage(`{}`)})
	if n := <-got; n.Status != sake.TaskInputRequired || len(n.InputRequests) != 2 {
		t.Errorf("notification %+v", n)
	}
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{"a": nil}); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n.Status != sake.TaskInputRequired || len(n.InputRequests) != 1 {
		t.Errorf("notification %+v", n)
	}
	if err := m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{"b": nil}); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n.Status != sake.TaskWorking || n.InputRequests != nil {
		t.Errorf("notification %+v", n)
	}
	<-outcome
	ctl.Complete(json.RawMessage(`{}`), false)
	n := <-got
	if n.Status != sake.TaskCompleted {
		t.Errorf("notification %+v", n)
	}
	n.Result[0] = 'X' // a copy
	if r := mustGet(t, m, "o", task.ID).Result; string(r) != "{}" {
		t.Errorf("subscriber changed the stored result: %s", r)
	}

	stop()
	stop()
	task2, ctl2 := mustCreate(t, m, "o", backend.TaskOptions{})
	ctl2.Complete(nil, false)
	if _, err := m.Cancel(ctx, "o", task2.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-got:
		t.Errorf("notification after stop: %+v", n)
	default:
	}
	select {
	case n := <-others:
		t.Errorf("another owner's subscriber got %+v", n)
	default:
	}
}

func TestSubscriberMayCallManager(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	seen := make(chan string, 4)
	defer m.Subscribe("o", func(t *backend.Task) {
		// Called outside the manager's locks: calling back must not
		// deadlock.
		got, err := m.Get(context.Background(), "o", t.ID)
		if err == nil {
			seen <- got.Status
		}
		_ = m.Running()
	})()
	_, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	ctl.Complete(nil, false)
	if s := <-seen; s != sake.TaskCompleted {
		t.Errorf("subscriber saw %s", s)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	running, ctl := mustCreate(t, m, "o", backend.TaskOptions{TTL: time.Minute})
	done, dctl := mustCreate(t, m, "o", backend.TaskOptions{TTL: time.Minute})
	dctl.Complete(nil, false)
	long, _ := mustCreate(t, m, "o", backend.TaskOptions{TTL: time.Hour})

	clk.Add(time.Minute)
	mustGet(t, m, "o", running.ID) // expires after the TTL, not at it
	clk.Add(time.Millisecond)

	// Expired but not swept: already gone for every caller.
	for _, id := range []string{running.ID, done.ID} {
		if _, err := m.Get(ctx, "o", id); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Get expired: %v", err)
		}
		if _, err := m.Cancel(ctx, "o", id); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Cancel expired: %v", err)
		}
		if err := m.Answer(ctx, "o", id, nil); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Answer expired: %v", err)
		}
		if _, err := m.Wait(ctx, "o", id, nil); !errors.Is(err, backend.ErrTaskNotFound) {
			t.Errorf("Wait expired: %v", err)
		}
	}
	if list, _, _ := m.List(ctx, "o", "", 0); len(list) != 1 || list[0].ID != long.ID {
		t.Errorf("List shows expired tasks: %v", ids(list))
	}
	if ctl.Context().Err() != nil || m.Running() != 2 {
		t.Errorf("before Sweep: context %v, running %d", ctl.Context().Err(), m.Running())
	}

	n, err := m.Sweep(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v", n, err)
	}
	<-ctl.Context().Done()
	if cause := context.Cause(ctl.Context()); !errors.Is(cause, errExpired) {
		t.Errorf("cause %v", cause)
	}
	if m.Running() != 1 {
		t.Errorf("Running = %d after Sweep", m.Running())
	}
	ctl.Complete(nil, false) // ignored, harmless
	ctl.Progress("late")
	if _, err := m.store.Get(ctx, running.ID); !errors.Is(err, backend.ErrTaskNotFound) {
		t.Errorf("swept task still stored: %v", err)
	}
	if n, err := m.Sweep(ctx); n != 0 || err != nil {
		t.Errorf("second Sweep = %d, %v", n, err)
	}
	mustGet(t, m, "o", long.ID)
}

func TestNoExpiry(t *testing.T) {
	t.Parallel()
	clk := newClock()
	m := newManager(t, Clock(clk.Now), DefaultTTL(-1))
	task, _ := mustCreate(t, m, "o", backend.TaskOptions{})
	clk.Add(10000 * time.Hour)
	if n, _ := m.Sweep(context.Background()); n != 0 {
		t.Errorf("swept %d", n)
	}
	mustGet(t, m, "o", task.ID)
}

func TestMaxRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newManager(t, MaxRunning(2))
	_, c1 := mustCreate(t, m, "o", backend.TaskOptions{})
	t2, _ := mustCreate(t, m, "o", backend.TaskOptions{})
	if _, _, err := m.Create(ctx, "o", backend.TaskOptions{}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("third Create: %v", err)
	}
	c1.Complete(nil, false)
	_, c3 := mustCreate(t, m, "o", backend.TaskOptions{})
	if _, _, err := m.Create(ctx, "o", backend.TaskOptions{}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("Create when full again: %v", err)
	}
	if _, err := m.Cancel(ctx, "o", t2.ID); err != nil {
		t.Fatal(err)
	}
	c3.Fail(nil)
	if m.Running() != 0 {
		t.Errorf("Running = %d", m.Running())
	}
	mustCreate(t, m, "o", backend.TaskOptions{})
	mustCreate(t, m, "o", backend.TaskOptions{})

	unlimited := newManager(t, MaxRunning(0), MaxRunningPerOwner(0))
	for range 100 {
		mustCreate(t, unlimited, "o", backend.TaskOptions{})
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New()
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	finished, fctl := mustCreate(t, m, "o", backend.TaskOptions{})
	fctl.Complete(json.RawMessage(`{}`), false)
	// The work stops when its context ends, and says so.
	go func() {
		<-ctl.Context().Done()
		ctl.Fail(&sake.Error{Code: sake.CodeInternalError, Message: "stopped: " + context.Cause(ctl.Context()).Error()})
	}()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, m, "o", task.ID)
	if got.Status != sake.TaskFailed || got.Error.Message != "stopped: "+errShutdown.Error() {
		t.Errorf("after Shutdown: %s %+v", got.Status, got.Error)
	}
	if mustGet(t, m, "o", finished.ID).Status != sake.TaskCompleted {
		t.Error("Shutdown changed a finished task")
	}
	if _, _, err := m.Create(ctx, "o", backend.TaskOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Create after Shutdown: %v", err)
	}
	if err := m.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
	select {
	case <-m.janitorDone:
	default:
		t.Error("janitor still running")
	}
}

func TestShutdownForcesFailure(t *testing.T) {
	t.Parallel()
	m := New()
	task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
	waiting, wctl := mustCreate(t, m, "o", backend.TaskOptions{})
	outcome := needInput(wctl, map[string]json.RawMessage{"k": json.RawMessage(`{}`)})
	if _, err := m.Wait(context.Background(), "o", waiting.ID, status(sake.TaskInputRequired)); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown: %v", err)
	}
	if ctl.Context().Err() == nil {
		t.Error("context still live")
	}
	if o := <-outcome; !errors.Is(o.err, context.Canceled) {
		t.Errorf("NeedInput during Shutdown: %v", o.err)
	}
	for _, id := range []string{task.ID, waiting.ID} {
		got := mustGet(t, m, "o", id)
		if got.Status != sake.TaskFailed || got.Error == nil || got.Error.Code != sake.CodeInternalError ||
			got.Error.Message != "server shutting down" || got.InputRequests != nil {
			t.Errorf("task not failed by Shutdown: %+v %+v", got, got.Error)
		}
	}
	if m.Running() != 0 {
		t.Errorf("Running = %d", m.Running())
	}
	ctl.Complete(nil, false) // the work ends late: ignored
	if got := mustGet(t, m, "o", task.ID); got.Status != sake.TaskFailed {
		t.Errorf("late Complete: %s", got.Status)
	}
	if err := m.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

func TestShutdownUnused(t *testing.T) {
	t.Parallel()
	m := New()
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m.janitorDone != nil {
		t.Error("janitor started without a task")
	}
}

func TestListPagination(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	m := newManager(t, Clock(clk.Now))
	var want []string
	for i := range 5 {
		task, _ := mustCreate(t, m, "o", backend.TaskOptions{Tool: fmt.Sprint(i)})
		want = append([]string{task.ID}, want...)
		clk.Add(time.Millisecond)
	}
	mustCreate(t, m, "someone else", backend.TaskOptions{})

	var got []string
	cursor := ""
	pages := 0
	for {
		page, next, err := m.List(ctx, "o", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, ids(page)...)
		if next == "" {
			break
		}
		if next != page[len(page)-1].ID {
			t.Errorf("cursor %q is not the page's last task", next)
		}
		cursor = next
	}
	if pages != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%d pages %v, want 3 pages %v", pages, got, want)
	}
	if page, next, err := m.List(ctx, "o", "", 5); len(page) != 5 || next != "" || err != nil {
		t.Errorf("exact page: %d tasks, next %q, %v", len(page), next, err)
	}
	if page, _, err := m.List(ctx, "o", "", 0); len(page) != 5 || err != nil {
		t.Errorf("default page: %d tasks, %v", len(page), err)
	}
	var rpcErr *sake.Error
	if _, _, err := m.List(ctx, "o", "bogus", 2); !errors.As(err, &rpcErr) || rpcErr.Code != sake.CodeInvalidParams {
		t.Errorf("bad cursor: %v", err)
	}
	if _, _, err := m.List(ctx, "someone else", want[0], 2); !errors.As(err, &rpcErr) {
		t.Errorf("another owner's cursor: %v", err)
	}
}

// TestConcurrent exercises every operation at once, for the race
// detector.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newManager(t, MaxRunning(0), MaxRunningPerOwner(0))
	defer m.Subscribe("o", func(*backend.Task) {})()
	var wg sync.WaitGroup
	for i := range 20 {
		task, ctl := mustCreate(t, m, "o", backend.TaskOptions{})
		wg.Go(func() {
			answers, err := ctl.NeedInput(map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`2`)})
			if err != nil {
				return
			}
			ctl.Progress(fmt.Sprint(len(answers)))
			ctl.Complete(json.RawMessage(`{}`), false)
		})
		wg.Go(func() {
			got, err := m.Wait(ctx, "o", task.ID, func(t *backend.Task) bool {
				return t.Status == sake.TaskInputRequired || t.Terminal()
			})
			if err != nil || got.Terminal() {
				return
			}
			var inner sync.WaitGroup
			for _, k := range []string{"a", "b", "a"} {
				inner.Go(func() { _ = m.Answer(ctx, "o", task.ID, map[string]json.RawMessage{k: json.RawMessage(`true`)}) })
			}
			inner.Wait()
		})
		wg.Go(func() {
			if i%4 == 0 {
				_, _ = m.Cancel(ctx, "o", task.ID)
			}
			_, _ = m.Wait(ctx, "o", task.ID, nil)
			_, _, _ = m.List(ctx, "o", "", 5)
		})
	}
	wg.Wait()
	if m.Running() != 0 {
		t.Errorf("Running = %d", m.Running())
	}
	list, _, _ := m.List(ctx, "o", "", 0)
	for _, task := range list {
		if !task.Terminal() {
			t.Errorf("task %s left %s", task.ID, task.Status)
		}
	}
}

// One owner cannot take every slot: beyond MaxRunningPerOwner its Create
// fails with an error the caller can act on, while others still start.
func TestMaxRunningPerOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newManager(t, MaxRunning(10), MaxRunningPerOwner(2))
	_, a1 := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	_, _, err := m.Create(ctx, "sub:alice", backend.TaskOptions{})
	if !errors.Is(err, ErrTooManyForOwner) || errors.Is(err, ErrTooMany) {
		t.Fatalf("alice's third Create: %v", err)
	}
	var rpc *sake.Error
	if !errors.As(err, &rpc) || rpc.Code != sake.CodeServerBusy || !strings.Contains(rpc.Message, "cancel") {
		t.Fatalf("the caller's error: %+v", rpc)
	}
	mustCreate(t, m, "sub:bob", backend.TaskOptions{})
	mustCreate(t, m, "", backend.TaskOptions{})
	a1.Complete(nil, false)
	mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	if m.Running() != 4 {
		t.Errorf("Running = %d", m.Running())
	}
	// A store failure gives the slot back.
	failing := newManager(t, MaxRunningPerOwner(1), WithStore(failingStore{NewMemoryStore()}))
	for range 2 {
		if _, _, err := failing.Create(ctx, "sub:alice", backend.TaskOptions{}); errors.Is(err, ErrTooManyForOwner) || err == nil {
			t.Fatalf("Create with a failing store: %v", err)
		}
	}
	// The server-wide limit still holds, with its own error.
	full := newManager(t, MaxRunning(1), MaxRunningPerOwner(5))
	mustCreate(t, full, "sub:alice", backend.TaskOptions{})
	if _, _, err := full.Create(ctx, "sub:bob", backend.TaskOptions{}); !errors.Is(err, ErrTooMany) || !errors.As(err, &rpc) || rpc.Code != sake.CodeServerBusy {
		t.Fatalf("bob when the server is full: %v", err)
	}
}

type failingStore struct{ Store }

func (failingStore) Create(context.Context, *backend.Task) error { return errors.New("store down") }

// A caller that sees its task finished (on this replica or another one
// reading the same store) may start the next one at once: the owner's
// slot is free before the finished state can be read.
func TestSlotFreeOnceFinishedIsVisible(t *testing.T) {
	t.Parallel()
	store := &watchingStore{Store: NewMemoryStore()}
	m := newManager(t, MaxRunning(1), MaxRunningPerOwner(1), WithStore(store))
	_, ctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	var next error
	store.onTerminal = func() {
		// What a poller sees right after the terminal state is stored.
		_, _, next = m.Create(context.Background(), "sub:alice", backend.TaskOptions{})
	}
	ctl.Complete(json.RawMessage(`{"content":[]}`), false)
	if next != nil {
		t.Fatalf("Create right after the first task was seen completed: %v", next)
	}
	if m.Running() != 1 {
		t.Errorf("Running = %d, want the second task only", m.Running())
	}
}

// watchingStore calls onTerminal (once) after it stored a terminal task.
type watchingStore struct {
	Store
	onTerminal func()
}

func (s *watchingStore) Update(ctx context.Context, id string, fn func(*backend.Task) error) (*backend.Task, error) {
	t, err := s.Store.Update(ctx, id, fn)
	if err == nil && t.Terminal() && s.onTerminal != nil {
		f := s.onTerminal
		s.onTerminal = nil
		f()
	}
	return t, err
}
