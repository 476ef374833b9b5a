package saketest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/client"
)

// Task is a task as the client sees it (tasks/get): the ID, the status
// and its message, the times, the TTL (nil when kept without limit), the
// poll interval the server suggests, the InputRequests of an
// input_required task by key, the Result of a completed task and the
// Error of a failed one.
type Task = client.Task

// CallToolAsync calls a tool and hands back the task when the server runs
// it as one (the *Task is then non-nil and the result nil), or the result
// when it answered at once. A legacy client asks for a task (params.task)
// when the tool supports one.
func (c *Client) CallToolAsync(name string, args any) (*sake.ToolResult, *Task, error) {
	c.t.Helper()
	var task *client.Task
	res, err := call(c, func(cl *client.Client, ctx context.Context) (*sake.ToolResult, error) {
		res, t, err := cl.StartTool(ctx, name, args)
		task = t
		return res, err
	})
	return res, task, err
}

// waitFor runs fn under the given timeout (else the default) and turns
// its expiry into ErrTaskTimeout.
func waitFor[T any](c *Client, timeout, def time.Duration, fn func(cl *client.Client, ctx context.Context) (T, error)) (T, error) {
	c.t.Helper()
	if timeout <= 0 {
		timeout = def
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return call(c, func(cl *client.Client, ctx context.Context) (T, error) {
		tctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		v, err := fn(cl, tctx)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = ErrTaskTimeout
		}
		return v, err
	})
}

// GetTask returns the task as tasks/get does (in the legacy era with the
// result of a completed task, fetched with tasks/result).
func (c *Client) GetTask(id string) (*Task, error) {
	c.t.Helper()
	t, err := call(c, func(cl *client.Client, ctx context.Context) (*client.Task, error) {
		return cl.GetTask(ctx, id)
	})
	return t, err
}

// UpdateTask answers a task's input requests (tasks/update, modern era).
// responses are keyed as the task's InputRequests are, or by the key the
// tool asked with ("confirm" for the round's "confirm-2"); values are what
// the client answers: a protocol.ElicitResult (Accept, Decline, Cancel) for an
// elicitation, a *sake.SamplingResult for a sampling request, or any
// value that encodes to the JSON the client answers. In the
// 2025-11-25 era, where the protocol has no tasks/update, use TaskResult:
// it answers the task's questions with OnInput, Sampling and Roots.
func (c *Client) UpdateTask(id string, responses map[string]any) error {
	c.t.Helper()
	if !c.opts.legacy && len(responses) > 0 {
		if t, err := c.GetTask(id); err == nil && len(t.InputRequests) > 0 {
			responses = roundKeys(responses, t.InputRequests)
		}
	}
	_, err := call(c, func(cl *client.Client, ctx context.Context) (struct{}, error) {
		return struct{}{}, cl.UpdateTask(ctx, id, responses)
	})
	return err
}

// roundKeys renames the responses keyed by a tool's own key to the key of
// the current round's request ("confirm" to "confirm-2"), when exactly one
// outstanding request has that key.
func roundKeys(responses map[string]any, requests map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(responses))
	for k, v := range responses {
		if _, ok := requests[k]; ok {
			out[k] = v
			continue
		}
		match := ""
		for wk := range requests {
			if i := strings.LastIndexByte(wk, '-'); i > 0 && wk[:i] == k && isDigits(wk[i+1:]) {
				if match != "" {
					match = ""
					break
				}
				match = wk
			}
		}
		if match != "" {
			out[match] = v
		} else {
			out[k] = v
		}
	}
	return out
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// TaskResult drives a task to its end and returns its result as CallTool
// does, answering its questions with OnInput, Sampling and Roots on the
// way, in both eras: with tasks/result (2025-11-25), or by awaiting it and
// answering with tasks/update (2026-07-28). It gives up after TaskTimeout
// with ErrTaskTimeout.
func (c *Client) TaskResult(id string) (*sake.ToolResult, error) {
	c.t.Helper()
	return waitFor(c, c.opts.taskTimeout, 0, func(cl *client.Client, ctx context.Context) (*sake.ToolResult, error) {
		return cl.TaskResult(ctx, id)
	})
}

// CancelTask cancels a task.
func (c *Client) CancelTask(id string) error {
	c.t.Helper()
	_, err := call(c, func(cl *client.Client, ctx context.Context) (struct{}, error) {
		return struct{}{}, cl.CancelTask(ctx, id)
	})
	return err
}

// ErrTaskTimeout is returned by AwaitTask when the task is still working
// after the timeout.
var ErrTaskTimeout = errors.New("saketest: the task is still working")

// AwaitTask waits until the task is no longer working and returns it as
// tasks/get does then: input_required, completed, failed or cancelled. It
// wakes when the task's status changes (it watches the server's task
// manager; through Handler without the server, the client listens for the
// task's notifications or polls at the interval the server suggests), and
// gives up after timeout (when 0, the client's WaitTimeout, else 30
// seconds) with ErrTaskTimeout.
func (c *Client) AwaitTask(id string, timeout time.Duration) (*Task, error) {
	c.t.Helper()
	t, err := waitFor(c, timeout, c.opts.waitTimeout, func(cl *client.Client, ctx context.Context) (*client.Task, error) {
		if c.srv == nil || c.srv.Tasks() == nil {
			return cl.AwaitTask(ctx, id)
		}
		owner := ""
		if id := c.identity(); id != nil {
			owner = id.Owner()
		}
		_, err := c.srv.Tasks().Wait(ctx, owner, id, func(t *backend.Task) bool { return t.Status != sake.TaskWorking })
		if err != nil && !errors.Is(err, backend.ErrTaskNotFound) {
			// A task tasks/get does not know gives the error the client
			// would see.
			return nil, err
		}
		return cl.GetTask(ctx, id)
	})
	return t, err
}
