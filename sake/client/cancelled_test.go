package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// holder runs one task that tells its id and waits to be cancelled.
type holder struct{ ids chan string }

func (h *holder) Declare(d *sake.Declarations) {
	d.Tool("Hold").Description("Waits until cancelled.").Task(sake.TaskRequired).TaskTiming(time.Hour, time.Hour)
}

func (h *holder) Hold(ctx *sake.Context) (string, error) {
	h.ids <- ctx.TaskID()
	<-ctx.Done()
	return "", ctx.Err()
}

func TestCancelledTaskIsErrTaskCancelledInBothEras(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		m := tasks.New()
		t.Cleanup(func() { _ = m.Shutdown(t.Context()) })
		h := &holder{ids: make(chan string, 2)}
		srv, err := sake.New(h, sake.Tasks(m))
		if err != nil {
			t.Fatal(err)
		}
		c := connect(t, tr, srv, opts...)

		// A task cancelled while CallTool waits for it.
		done := make(chan error, 1)
		go func() {
			_, err := c.CallTool(t.Context(), "hold", nil)
			done <- err
		}()
		id := <-h.ids
		if err := c.CancelTask(t.Context(), id); err != nil {
			t.Fatalf("cancel: %v", err)
		}
		if err := <-done; !errors.Is(err, client.ErrTaskCancelled) {
			t.Fatalf("CallTool of a cancelled task = %v, want ErrTaskCancelled", err)
		}

		// A task cancelled before TaskResult asks.
		_, task, err := c.StartTool(t.Context(), "hold", nil)
		if err != nil || task == nil {
			t.Fatalf("start = %+v, %v", task, err)
		}
		<-h.ids
		if err := c.CancelTask(t.Context(), task.ID); err != nil {
			t.Fatalf("cancel: %v", err)
		}
		res, err := c.TaskResult(t.Context(), task.ID)
		if res != nil || !errors.Is(err, client.ErrTaskCancelled) {
			t.Fatalf("TaskResult of a cancelled task = %v, %v, want ErrTaskCancelled", res, err)
		}
		var rpc *protocol.Error
		if errors.As(err, &rpc) {
			t.Fatalf("the error of a cancelled task carries a protocol error (%v) in one era only", rpc)
		}
	})
}

func TestClientCloseEndsSubscriptions(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c, err := client.Connect(t.Context(), tr.Make(t, srv), opts...)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := c.Listen(t.Context(), client.Filter{ToolsListChanged: true, Resources: []string{"kit://readme"}}, nil)
		if err != nil {
			t.Fatalf("listen: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		select {
		case <-sub.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the subscription is not done after the client's Close")
		}
		if err := sub.Err(); err != nil {
			t.Fatalf("err after the client's Close = %v", err)
		}
		if err := sub.Close(); err != nil {
			t.Fatalf("closing a subscription of a closed client = %v", err)
		}
	})
}
