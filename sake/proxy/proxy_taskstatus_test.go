package proxy_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// hourly is a task tool whose tasks ask to be polled once an hour.
type hourly struct{ release chan struct{} }

func (h *hourly) Declare(d *sake.Declarations) {
	d.Tool("Wait").Description("Waits until released.").Task(sake.TaskRequired).TaskTiming(time.Hour, time.Hour)
}

func (h *hourly) Wait(ctx *sake.Context) (string, error) {
	select {
	case <-h.release:
		return "released", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// TestLegacyAwaitTaskWakesOnStatus: in a 2025-11-25 session the client
// learns that a task ended from notifications/tasks/status on the
// session's stream, not from its next poll (an hour away).
func TestLegacyAwaitTaskWakesOnStatus(t *testing.T) {
	t.Parallel()
	h := &hourly{release: make(chan struct{})}
	srv := sake.MustNew(h, sake.Tasks(tasks.New()))
	ph := plug.New(srv)
	ts := httptest.NewServer(ph)
	t.Cleanup(func() { ph.Close(); ts.Close() })
	polled := make(chan struct{}, 8)
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		res, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && bytes.Contains(body, []byte(`"method":"tasks/get"`)) {
			polled <- struct{}{}
		}
		return res, err
	})}
	c, err := client.Connect(t.Context(), client.HTTP(ts.URL, hc), client.ProtocolVersion("2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_, task, err := c.StartTool(t.Context(), "wait", nil)
	if err != nil || task == nil {
		t.Fatalf("wait = %v, %v; want a task", task, err)
	}
	got, err := c.GetTask(t.Context(), task.ID)
	if err != nil || got.Status != sake.TaskWorking || got.PollInterval != time.Hour {
		t.Fatalf("tasks/get = %+v, %v", got, err)
	}
	<-polled // the tasks/get above
	done := make(chan *client.Task, 1)
	go func() {
		got, err := c.AwaitTask(t.Context(), task.ID)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	// AwaitTask has seen the task working and waits for its next poll,
	// an hour away, unless a status notification wakes it.
	<-polled
	close(h.release)
	if got := <-done; got == nil || got.Status != sake.TaskCompleted || got.Result.Text() != "released" {
		t.Fatalf("awaited %+v", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
