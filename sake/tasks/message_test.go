package tasks

import (
	"context"
	"errors"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// A status message PostgreSQL's text cannot hold is refused by every
// store alike, and the work that reported it hears so; a failure's
// message, which ends the task, is mended instead.
func TestStatusMessageRefused(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	task, ctl := mustCreate(t, m, "sub:alice", backend.TaskOptions{})
	if err := ctl.Progress("step 1"); err != nil {
		t.Fatal(err)
	}
	changes := make(chan *backend.Task, 4)
	stop := m.Subscribe("sub:alice", func(t *backend.Task) { changes <- t })
	defer stop()
	for _, bad := range []string{"nul\x00here", "bad \xff utf-8"} {
		err := ctl.Progress(bad)
		var rpc *sake.Error
		if !errors.As(err, &rpc) || rpc.Code != sake.CodeInvalidParams {
			t.Errorf("Progress(%q) = %v, want a -32602 error", bad, err)
		}
	}
	if got := mustGet(t, m, "sub:alice", task.ID); got.StatusMessage != "step 1" {
		t.Errorf("status message after refusals: %q", got.StatusMessage)
	}
	select {
	case c := <-changes:
		t.Errorf("a refused message was announced: %+v", c)
	default:
	}

	ctl.Fail(&sake.Error{Code: -32001, Message: "broke\x00 at \xff"})
	got := mustGet(t, m, "sub:alice", task.ID)
	if got.Status != sake.TaskFailed || got.StatusMessage != "broke\uFFFD at \uFFFD" || got.Error.Message != got.StatusMessage {
		t.Errorf("failed with a mended message: %+v, %+v", got, got.Error)
	}
	if err := ctl.Progress("late"); err != nil {
		t.Errorf("Progress after the end: %v (ignored, as before)", err)
	}
	_ = context.Background()
}
