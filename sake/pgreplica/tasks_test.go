package pgreplica_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/pgreplica"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// jobs is a server whose tools run as tasks.
type jobs struct {
	started chan struct{} // Wait began, on whichever replica
	ended   chan error    // Wait's context ended
}

func (j *jobs) Declare(d *sake.Declarations) {
	d.Tool("Confirm").Task(sake.TaskRequired).TaskTiming(time.Hour, 10*time.Millisecond)
	d.Tool("Wait").Task(sake.TaskRequired).TaskTiming(time.Hour, 10*time.Millisecond)
}

func (j *jobs) Confirm(c *sake.Context) (string, error) {
	var f nameForm
	act, err := c.Elicit("name", "Your name?", &f)
	if err != nil {
		return "", err
	}
	return string(act) + ":" + f.Name, nil
}

func (j *jobs) Wait(c *sake.Context) (string, error) {
	j.started <- struct{}{}
	<-c.Done()
	j.ended <- context.Cause(c)
	return "", c.Err()
}

// roundRobin sends each request to the next of hosts, counting them.
type roundRobin struct {
	hosts []string
	next  atomic.Uint64
	seen  []atomic.Int64
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	i := (rr.next.Add(1) - 1) % uint64(len(rr.hosts))
	rr.seen[i].Add(1)
	out := r.Clone(r.Context())
	out.URL.Host, out.Host = rr.hosts[i], rr.hosts[i]
	return http.DefaultTransport.RoundTrip(out)
}

func TestTasksAcrossReplicas(t *testing.T) {
	t.Parallel()
	url0, schema, _ := pgtest.Schema(t)
	ctx := context.Background()
	j := &jobs{started: make(chan struct{}, 1), ended: make(chan error, 1)}
	rr := &roundRobin{seen: make([]atomic.Int64, 3)}
	var first string
	var group []*pgreplica.Replica
	for range 3 {
		r, err := pgreplica.Open(ctx, pgtest.Pool(t, url0, schema))
		if err != nil {
			t.Fatal(err)
		}
		group = append(group, r)
		srv := sake.MustNew(j, r.Options()...)
		h := plug.New(srv)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			h.Close()
			_ = srv.Shutdown(ctx)
			_ = r.Close(ctx)
		})
		u, _ := url.Parse(ts.URL)
		rr.hosts = append(rr.hosts, u.Host)
		if first == "" {
			first = ts.URL
		}
	}
	c, err := client.Connect(ctx, client.HTTP(first, &http.Client{Transport: rr}),
		client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			return client.Accept(map[string]any{"name": "Ada"}), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Started on one replica, answered and finished through the others.
	res, err := c.CallTool(ctx, "confirm", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != "accept:Ada" {
		t.Fatalf("confirm: %q", got)
	}

	// Cancelled through another replica than the one running it.
	_, task, err := c.StartTool(ctx, "wait", nil)
	if err != nil || task == nil {
		t.Fatalf("start: %v, %v", task, err)
	}
	<-j.started
	if err := c.CancelTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if cause := <-j.ended; cause == nil {
		t.Error("the work's context ended without a cause")
	}
	// Every replica has heard of the cancellation (its waiters woke).
	for i, r := range group {
		if _, err := r.Tasks().Wait(ctx, "", task.ID, func(t *backend.Task) bool { return t.Status == sake.TaskCancelled }); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	got, err := c.GetTask(ctx, task.ID)
	if err != nil || got.Status != sake.TaskCancelled {
		t.Fatalf("after cancel: %+v, %v", got, err)
	}
	for i := range rr.seen {
		if rr.seen[i].Load() == 0 {
			t.Errorf("replica %d served nothing", i)
		}
	}
}

// TestShortDeadAfterFailsDeadSiblingsTasks opens a replica with a short
// DeadAfter next to a sibling that ran a task and stopped beating: the
// task is failed within the deadline (the default DeadAfter, a minute,
// would miss it).
func TestShortDeadAfterFailsDeadSiblingsTasks(t *testing.T) {
	t.Parallel()
	url0, schema, pool := pgtest.Schema(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The sibling records one heartbeat and a working task, then stops.
	dead, err := pgstore.New(ctx, pool, "dead-sibling")
	if err != nil {
		t.Fatal(err)
	}
	dead.Listen(func(string) {})() // listening records the heartbeat
	now := time.Now().UTC().Truncate(time.Millisecond)
	task := &backend.Task{ID: "orphan", Owner: "alice", Tool: "wait", Status: sake.TaskWorking,
		CreatedAt: now, LastUpdatedAt: now, TTL: time.Hour, PollInterval: time.Second}
	if err := dead.Create(ctx, task); err != nil {
		t.Fatal(err)
	}

	r, err := pgreplica.Open(ctx, pgtest.Pool(t, url0, schema),
		pgreplica.StoreOptions(pgstore.Heartbeat(20*time.Millisecond), pgstore.DeadAfter(200*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	got, err := r.Tasks().Wait(ctx, "alice", task.ID, nil)
	if err != nil {
		t.Fatalf("the dead sibling's task was not failed in time: %v", err)
	}
	if got.Status != sake.TaskFailed || got.Error == nil || got.Error.Code != sake.CodeInternalError {
		t.Fatalf("the dead sibling's task: %+v", got)
	}
}
