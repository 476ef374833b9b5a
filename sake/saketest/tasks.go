package saketest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// Task is a task as the client sees it (tasks/get).
type Task struct {
	ID            string
	Status        string
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	// TTL is nil when the task is kept without limit.
	TTL          *time.Duration
	PollInterval time.Duration
	// InputRequests are the outstanding questions of an input_required
	// task, by key.
	InputRequests map[string]json.RawMessage
	// Result is the tool result of a completed task.
	Result *sake.ToolResult
	// Error is the error of a failed task.
	Error *sake.Error
}

// Terminal reports whether the task has finished.
func (t *Task) Terminal() bool {
	return t.Status == sake.TaskCompleted || t.Status == sake.TaskFailed || t.Status == sake.TaskCancelled
}

func decodeTask(raw []byte) (*Task, error) {
	var w struct {
		TaskID         string                     `json:"taskId"`
		Status         string                     `json:"status"`
		StatusMessage  string                     `json:"statusMessage"`
		CreatedAt      time.Time                  `json:"createdAt"`
		LastUpdatedAt  time.Time                  `json:"lastUpdatedAt"`
		TTLMs          *int64                     `json:"ttlMs"`
		TTL            *int64                     `json:"ttl"`
		PollIntervalMs int64                      `json:"pollIntervalMs"`
		PollInterval   int64                      `json:"pollInterval"`
		InputRequests  map[string]json.RawMessage `json:"inputRequests"`
		Result         json.RawMessage            `json:"result"`
		Error          *sake.Error                `json:"error"`
		Task           json.RawMessage            `json:"task"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("saketest: task: %w", err)
	}
	if len(w.Task) > 0 { // the legacy nested form
		return decodeTask(w.Task)
	}
	t := &Task{ID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage, CreatedAt: w.CreatedAt,
		LastUpdatedAt: w.LastUpdatedAt, InputRequests: w.InputRequests, Error: w.Error}
	ttl := w.TTLMs
	if ttl == nil {
		ttl = w.TTL
	}
	if ttl != nil {
		d := time.Duration(*ttl) * time.Millisecond
		t.TTL = &d
	}
	t.PollInterval = time.Duration(max(w.PollIntervalMs, w.PollInterval)) * time.Millisecond
	if len(w.Result) > 0 {
		var r sake.ToolResult
		if err := r.UnmarshalJSON(w.Result); err != nil {
			return nil, err
		}
		t.Result = &r
	}
	if t.ID == "" {
		return nil, fmt.Errorf("saketest: not a task: %s", raw)
	}
	return t, nil
}

// isTask reports whether a tools/call result is a task handle.
func isTask(raw []byte) bool {
	var peek struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(raw, &peek)
	return peek.ResultType == "task" || len(peek.Task) > 0
}

// CallToolAsync calls a tool and hands back the task when the server runs
// it as one (the *Task is then non-nil and the result nil), or the result
// when it answered at once.
func (c *Client) CallToolAsync(name string, args any) (*sake.ToolResult, *Task, error) {
	c.t.Helper()
	raw, err := c.Request("tools/call", c.callParams(name, args))
	if err != nil {
		return nil, nil, err
	}
	if isTask(raw) {
		t, err := decodeTask(raw)
		return nil, t, err
	}
	var res sake.ToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, nil, err
	}
	if res.IsError {
		return &res, nil, &sake.ToolError{Result: &res}
	}
	return &res, nil, nil
}

// callParams are the params of tools/call; a legacy client asks for a
// task (params.task) when the tool supports one.
func (c *Client) callParams(name string, args any) *callParams {
	c.t.Helper()
	p := &callParams{Name: name, Arguments: args}
	if c.opts.legacy && c.taskSupport(name) {
		p.Task = map[string]any{}
	}
	return p
}

// taskSupport reports whether a legacy tool declares task support.
func (c *Client) taskSupport(name string) bool {
	c.t.Helper()
	c.mu.Lock()
	known := c.taskTools
	c.mu.Unlock()
	if known == nil {
		known = map[string]bool{}
		raw, err := c.Request("tools/list", nil)
		if err == nil {
			var l struct {
				Tools []struct {
					Name      string `json:"name"`
					Execution struct {
						TaskSupport string `json:"taskSupport"`
					} `json:"execution"`
				} `json:"tools"`
			}
			_ = json.Unmarshal(raw, &l)
			for _, t := range l.Tools {
				known[t.Name] = t.Execution.TaskSupport == "optional" || t.Execution.TaskSupport == "required"
			}
		}
		c.mu.Lock()
		c.taskTools = known
		c.mu.Unlock()
	}
	return known[name]
}

// followTask drives a task to its end, answering its questions with the
// client's handlers, and returns its result as CallTool does.
func (c *Client) followTask(t *Task) (*sake.ToolResult, error) {
	c.t.Helper()
	if c.opts.legacy {
		raw, err := c.legacyResult(t.ID, c.opts.taskTimeout)
		if err != nil {
			return nil, err
		}
		var res sake.ToolResult
		if err := res.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		if res.IsError {
			return &res, &sake.ToolError{Result: &res}
		}
		return &res, nil
	}
	for {
		got, err := c.AwaitTask(t.ID, c.opts.taskTimeout)
		if err != nil {
			return nil, err
		}
		switch got.Status {
		case sake.TaskInputRequired:
			answers := map[string]any{}
			for key, raw := range got.InputRequests {
				var q struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				}
				if err := json.Unmarshal(raw, &q); err != nil {
					return nil, err
				}
				a, e := c.answer(q.Method, q.Params)
				if e != nil {
					return nil, e
				}
				answers[key] = a
			}
			if err := c.UpdateTask(t.ID, answers); err != nil {
				return nil, err
			}
		case sake.TaskCompleted:
			if got.Result == nil {
				return nil, fmt.Errorf("saketest: task %s completed without a result", t.ID)
			}
			if got.Result.IsError {
				return got.Result, &sake.ToolError{Result: got.Result}
			}
			return got.Result, nil
		case sake.TaskFailed:
			if got.Error != nil {
				return nil, got.Error
			}
			return nil, fmt.Errorf("saketest: task %s failed", t.ID)
		case sake.TaskCancelled:
			return nil, fmt.Errorf("saketest: task %s was cancelled", t.ID)
		}
	}
}

// legacyResult waits for a legacy task's result with tasks/result,
// answering its questions on the way, for at most timeout (default 30
// seconds): then the request is cancelled and ErrTaskTimeout returned.
func (c *Client) legacyResult(id string, timeout time.Duration) (json.RawMessage, error) {
	c.t.Helper()
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	parent := c.context()
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	raw, err := c.WithContext(ctx).Request("tasks/result", map[string]any{"taskId": id})
	if err != nil && errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
		return nil, ErrTaskTimeout
	}
	return raw, err
}

// GetTask returns the task as tasks/get does.
func (c *Client) GetTask(id string) (*Task, error) {
	c.t.Helper()
	raw, err := c.Request("tasks/get", map[string]any{"taskId": id})
	if err != nil {
		return nil, err
	}
	if c.opts.legacy {
		t, err := decodeTask(raw)
		if err != nil || !t.Terminal() || t.Status != sake.TaskCompleted {
			return t, err
		}
		// The legacy era keeps the result apart: fetch it.
		res, rerr := c.Request("tasks/result", map[string]any{"taskId": id})
		if rerr == nil {
			var r sake.ToolResult
			if r.UnmarshalJSON(res) == nil {
				t.Result = &r
			}
		}
		return t, nil
	}
	return decodeTask(raw)
}

// UpdateTask answers a task's input requests (tasks/update, modern era).
// responses are keyed as the task's InputRequests are, or by the key the
// tool asked with ("confirm" for the round's "confirm-2"); values are what
// the client answers: an Answer (Accept, Decline, Cancel) for an
// elicitation, a *sake.SamplingResult's JSON, or any JSON value. In the
// 2025-11-25 era, where the protocol has no tasks/update, use TaskResult:
// it answers the task's questions with OnInput, Sampling and Roots.
func (c *Client) UpdateTask(id string, responses map[string]any) error {
	c.t.Helper()
	if !c.opts.legacy && len(responses) > 0 {
		if t, err := c.GetTask(id); err == nil && len(t.InputRequests) > 0 {
			responses = roundKeys(responses, t.InputRequests)
		}
	}
	_, err := c.Request("tasks/update", map[string]any{"taskId": id, "inputResponses": responses})
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
	return c.followTask(&Task{ID: id})
}

// CancelTask cancels a task.
func (c *Client) CancelTask(id string) error {
	c.t.Helper()
	_, err := c.Request("tasks/cancel", map[string]any{"taskId": id})
	return err
}

// ErrTaskTimeout is returned by AwaitTask when the task is still working
// after the timeout.
var ErrTaskTimeout = errors.New("saketest: the task is still working")

// AwaitTask waits until the task is no longer working and returns it as
// tasks/get does then: input_required, completed, failed or cancelled. It
// wakes when the task's status changes (it watches the server's task
// manager; through Handler without the server, it polls at the interval
// the server suggests), and gives up after timeout (when 0, the client's
// WaitTimeout, else 30 seconds) with ErrTaskTimeout.
func (c *Client) AwaitTask(id string, timeout time.Duration) (*Task, error) {
	c.t.Helper()
	if timeout <= 0 {
		timeout = c.opts.waitTimeout
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(c.context(), timeout)
	defer cancel()
	if c.srv != nil && c.srv.Tasks() != nil {
		owner := ""
		if id := c.identity(); id != nil {
			owner = id.Owner()
		}
		_, err := c.srv.Tasks().Wait(ctx, owner, id, func(t *sake.Task) bool { return t.Status != sake.TaskWorking })
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return nil, ErrTaskTimeout
		case errors.Is(err, sake.ErrTaskNotFound):
			// Let tasks/get give the error the client would see.
		case err != nil:
			return nil, err
		}
		return c.GetTask(id)
	}
	for {
		t, err := c.GetTask(id)
		if err != nil || t.Status != sake.TaskWorking {
			return t, err
		}
		wait := t.PollInterval
		if wait <= 0 {
			wait = time.Second
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ErrTaskTimeout
		case <-timer.C:
		}
	}
}
