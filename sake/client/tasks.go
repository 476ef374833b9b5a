package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Task is a task as the server reports it (tasks/get).
type Task struct {
	ID            string
	Status        string
	StatusMessage string
	CreatedAt     time.Time
	LastUpdatedAt time.Time
	// TTL is nil when the server keeps the task without limit.
	TTL *time.Duration
	// PollInterval is how often the server asks to be polled.
	PollInterval time.Duration
	// InputRequests are the outstanding questions of an input_required
	// task, by key (2026-07-28).
	InputRequests map[string]json.RawMessage
	// Result is the tool result of a completed task.
	Result *protocol.ToolResult
	// Error is the error of a failed task.
	Error *protocol.Error
}

// Terminal reports whether the task has finished.
func (t *Task) Terminal() bool {
	return t.Status == protocol.TaskCompleted || t.Status == protocol.TaskFailed || t.Status == protocol.TaskCancelled
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
		Error          *protocol.Error            `json:"error"`
		Task           json.RawMessage            `json:"task"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("client: task: %w", err)
	}
	if len(w.Task) > 0 && w.Task[0] == '{' { // the 2025-11-25 nested form
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
	if len(w.Result) > 0 && string(w.Result) != "null" {
		var r protocol.ToolResult
		if err := r.UnmarshalJSON(w.Result); err != nil {
			return nil, fmt.Errorf("client: task result: %w", err)
		}
		t.Result = &r
	}
	if t.ID == "" {
		return nil, fmt.Errorf("client: the server sent a task without an id: %.200s", raw)
	}
	return t, nil
}

// isTask reports whether a tools/call result is a task handle.
func isTask(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"task"`)) {
		return false // neither resultType "task" nor a task member
	}
	var peek struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(raw, &peek)
	return peek.ResultType == "task" || (len(peek.Task) > 0 && peek.Task[0] == '{')
}

// StartTool calls a tool and returns its task when the server runs it as
// one (the result is then nil), or its result when it answered at once.
// Drive the task with AwaitTask, GetTask, UpdateTask and CancelTask.
func (c *Client) StartTool(ctx context.Context, name string, args any) (*protocol.ToolResult, *Task, error) {
	return c.startTool(ctx, name, args, false)
}

// StartToolEncoded is StartTool with the result left encoded, as the
// server sent it (protocol.ToolResultFromWire): only its isError is read.
// A proxy returns it from its tool so that its dispatcher passes it on
// without decoding it and encoding it again (see sake.Context and
// protocol.ToolResultFromWire for when it is decoded after all).
func (c *Client) StartToolEncoded(ctx context.Context, name string, args any) (*protocol.ToolResult, *Task, error) {
	return c.startTool(ctx, name, args, true)
}

func (c *Client) startTool(ctx context.Context, name string, args any, encoded bool) (*protocol.ToolResult, *Task, error) {
	p := &callParams{Name: name, Arguments: args}
	co := &callOpts{name: name, hasName: true}
	if c.Era() == protocol.EraModern {
		hs, err := c.paramHeaders(name, args)
		if err != nil {
			return nil, nil, err
		}
		co.params = hs
	} else if !c.o.noTasks && c.legacyTaskTool(ctx, name) {
		p.Task = map[string]any{}
	}
	raw, err := c.call(ctx, "tools/call", p, co)
	if err != nil && co.params == nil && isHeaderMismatch(err) && c.Era() == protocol.EraModern {
		// The server wants some arguments in Mcp-Param-* headers and the
		// client had not learned which (the tool was called before it was
		// listed): list the tools, then call once more with the headers.
		if _, lerr := c.ListTools(ctx); lerr == nil {
			if hs, herr := c.paramHeaders(name, args); herr != nil {
				return nil, nil, herr
			} else if len(hs) > 0 {
				co.params = hs
				raw, err = c.call(ctx, "tools/call", p, co)
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return toolOutcome(raw, encoded)
}

// toolOutcome reads the result of a tools/call: a task, or a result left
// encoded or decoded.
func toolOutcome(raw json.RawMessage, encoded bool) (*protocol.ToolResult, *Task, error) {
	if isTask(raw) {
		t, err := decodeTask(raw)
		return nil, t, err
	}
	if encoded {
		res, err := protocol.ToolResultFromWire(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("client: tools/call result: %w", err)
		}
		if res.IsError {
			return res, nil, &protocol.ToolError{Result: res}
		}
		return res, nil, nil
	}
	res, err := toolResult(raw)
	return res, nil, err
}

// isHeaderMismatch reports a -32020 refusal: an HTTP header disagrees with
// the request's body.
func isHeaderMismatch(err error) bool {
	var rpc *protocol.Error
	return errors.As(err, &rpc) && rpc.Code == protocol.CodeHeaderMismatch
}

// legacyTaskTool reports whether a handshake-era server runs the tool as
// a task when asked (execution.taskSupport), learning the tools once.
func (c *Client) legacyTaskTool(ctx context.Context, name string) bool {
	if !c.Info().HasCapability("tasks") {
		return false
	}
	c.mu.Lock()
	known := c.taskTools
	c.mu.Unlock()
	if known == nil {
		known = map[string]bool{}
		cursor := ""
		for range maxPages {
			var params any
			if cursor != "" {
				params = map[string]string{"cursor": cursor}
			}
			raw, err := c.call(ctx, "tools/list", params, nil)
			if err != nil {
				return false
			}
			var l struct {
				Tools []struct {
					Name      string `json:"name"`
					Execution struct {
						TaskSupport string `json:"taskSupport"`
					} `json:"execution"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			}
			_ = json.Unmarshal(raw, &l)
			for _, t := range l.Tools {
				known[t.Name] = t.Execution.TaskSupport == "optional" || t.Execution.TaskSupport == "required"
			}
			if cursor = l.NextCursor; cursor == "" {
				break
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
func (c *Client) followTask(ctx context.Context, t *Task) (*protocol.ToolResult, error) {
	if c.Era() != protocol.EraModern {
		// tasks/result waits for the end, and the server asks its questions
		// on the way as requests of the session.
		raw, err := c.call(ctx, "tasks/result", map[string]any{"taskId": t.ID}, nil)
		if err != nil {
			return nil, c.legacyTaskError(ctx, t.ID, err)
		}
		return toolResult(raw)
	}
	for {
		got, err := c.AwaitTask(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		switch got.Status {
		case protocol.TaskInputRequired:
			answers, err := c.answerAll(ctx, got.InputRequests)
			if err != nil {
				return nil, err
			}
			if err := c.UpdateTask(ctx, t.ID, answers); err != nil {
				return nil, err
			}
		case protocol.TaskCompleted:
			if got.Result == nil {
				return nil, fmt.Errorf("client: task %s completed without a result", t.ID)
			}
			if got.Result.IsError {
				return got.Result, &protocol.ToolError{Result: got.Result}
			}
			return got.Result, nil
		case protocol.TaskFailed:
			if got.Error != nil {
				return nil, got.Error
			}
			return nil, fmt.Errorf("client: task %s failed: %s", t.ID, got.StatusMessage)
		default:
			return nil, fmt.Errorf("%w (task %s)", ErrTaskCancelled, t.ID)
		}
	}
}

// legacyTaskError is the error of a handshake-era tasks/result that
// failed: ErrTaskCancelled when the task was cancelled, as in the
// 2026-07-28 era. That revision gives a cancelled task's tasks/result no
// error of its own (servers answer with an internal error), so a
// protocol error is checked against tasks/get.
func (c *Client) legacyTaskError(ctx context.Context, id string, err error) error {
	var rpc *protocol.Error
	if !errors.As(err, &rpc) || ctx.Err() != nil {
		return err
	}
	raw, gerr := c.call(ctx, "tasks/get", map[string]any{"taskId": id}, &callOpts{name: id, hasName: true})
	if gerr != nil {
		return err
	}
	if t, derr := decodeTask(raw); derr == nil && t.Status == protocol.TaskCancelled {
		return fmt.Errorf("%w (task %s)", ErrTaskCancelled, id)
	}
	return err
}

// TaskResult drives a task to its end and returns its result as CallTool
// does, answering the task's questions with the client's handlers on the
// way: with tasks/update in the 2026-07-28 era, within tasks/result in the
// handshake era (where the server asks them as requests of the session).
// For a task started with StartTool; ctx bounds the wait.
func (c *Client) TaskResult(ctx context.Context, id string) (*protocol.ToolResult, error) {
	return c.followTask(ctx, &Task{ID: id})
}

// GetTask returns the task as tasks/get reports it. In the handshake era
// the result of a completed task is fetched with tasks/result.
func (c *Client) GetTask(ctx context.Context, id string) (*Task, error) {
	raw, err := c.call(ctx, "tasks/get", map[string]any{"taskId": id}, &callOpts{name: id, hasName: true})
	if err != nil {
		return nil, err
	}
	t, err := decodeTask(raw)
	if err != nil || c.Era() == protocol.EraModern || t.Status != protocol.TaskCompleted {
		return t, err
	}
	res, err := c.call(ctx, "tasks/result", map[string]any{"taskId": id}, nil)
	if err != nil {
		return nil, err
	}
	var r protocol.ToolResult
	if err := r.UnmarshalJSON(res); err != nil {
		return nil, fmt.Errorf("client: tasks/result: %w", err)
	}
	t.Result = &r
	return t, nil
}

// UpdateTask answers an input_required task's questions (tasks/update,
// 2026-07-28): responses maps each input request's key to its answer.
func (c *Client) UpdateTask(ctx context.Context, id string, responses any) error {
	_, err := c.call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": responses}, &callOpts{name: id, hasName: true})
	return err
}

// CancelTask asks the server to cancel a task.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	_, err := c.call(ctx, "tasks/cancel", map[string]any{"taskId": id}, &callOpts{name: id, hasName: true})
	return err
}

// defaultPoll is the polling interval when the server suggests none.
const defaultPoll = time.Second

// AwaitTask waits until the task is no longer working and returns it then
// (input_required, completed, failed or cancelled). It listens for the
// task's notifications where the server offers them (2026-07-28) and
// otherwise polls tasks/get at the interval the server asks. ctx bounds
// the wait.
func (c *Client) AwaitTask(ctx context.Context, id string) (*Task, error) {
	var wake chan struct{}
	if c.Era() == protocol.EraModern && c.Info().HasExtension(protocol.TaskExtension) {
		wake = make(chan struct{}, 1)
		sub, err := c.Listen(ctx, Filter{TaskIDs: []string{id}}, func(n protocol.Notification) {
			if n.Method == "notifications/tasks" || n.Method == "notifications/tasks/status" {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		})
		if err == nil && len(sub.Acknowledged().TaskIDs) > 0 {
			defer sub.Close()
		} else {
			if sub != nil {
				_ = sub.Close()
			}
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			wake = nil
		}
	} else if c.Era() == protocol.EraLegacy {
		wake = make(chan struct{}, 1)
		sub, err := c.Listen(ctx, Filter{TaskIDs: []string{id}}, func(protocol.Notification) {
			select {
			case wake <- struct{}{}:
			default:
			}
		})
		if err == nil {
			defer sub.Close()
		}
	}
	for {
		t, err := c.GetTask(ctx, id)
		if err != nil || t.Status != protocol.TaskWorking {
			return t, err
		}
		wait := t.PollInterval
		if wait <= 0 {
			wait = defaultPoll
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// ErrTaskCancelled is wrapped by the error of a call whose task was
// cancelled.
var ErrTaskCancelled = errors.New("client: the task was cancelled")
