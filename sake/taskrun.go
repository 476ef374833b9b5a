package sake

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// taskRun is a call running as a task.
type taskRun struct {
	ctl  backend.TaskControl
	task *backend.Task
	done func(TaskDone) // from Hooks.Task
	// shape is what middleware does to a result answered in the
	// request, applied to the task's (WithTaskResult).
	shape *taskShaper
}

// observeTask calls the Task hook for a call that just became a task.
func (s *Server) observeTask(reqCtx context.Context, c *Context) {
	if h := s.opts.hooks; h != nil && h.Task != nil {
		ctx, done := h.Task(reqCtx, c.Context, c.task.task)
		if ctx != nil {
			c.Context = ctx
		}
		c.task.done = done
	}
}

// end reports how the task's work ended to the Task hook, just before
// the work reports it to the task manager.
func (r *taskRun) end(d TaskDone) {
	if r.done == nil {
		return
	}
	if r.ctl.Context().Err() != nil {
		// Cancelled (or expired, or shut down) while it worked: the task
		// is final already and whatever the work reported is ignored.
		d = TaskDone{Status: TaskCancelled}
	}
	r.done(d)
}

// Tasks returns the server's task manager, or nil.
func (s *Server) Tasks() backend.TaskManager { return s.opts.tasks }

// StartTask turns the rest of the call into a task, for a tool declared
// with ToolDef.TaskStartedByCode: the client receives the task at once and
// polls it, and the code goes on in the background. Questions asked after
// StartTask park the task until the client answers them. When the client
// cannot take a task (it did not declare the tasks extension) and the tool
// allows it, StartTask does nothing and the call goes on in the request.
// Calling it again, or in a call that already is a task, does nothing.
func (c *Context) StartTask() error {
	if c.task != nil || c.startTask == nil {
		return nil
	}
	return c.startTask()
}

// TaskID returns the id of the task the call runs as, or "".
func (c *Context) TaskID() string {
	if c.task == nil {
		return ""
	}
	return c.task.task.ID
}

func missingTaskExtension() *Error {
	return &Error{Code: CodeMissingRequiredClientCapability,
		Message: "Server requires the " + protocol.TaskExtension + " extension for this request",
		Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{protocol.TaskExtension: map[string]any{}}}}}
}

// detached copies what a task keeps of its request: the message's buffer
// is reused once Handle returns.
func (r *Request) detached() *Request {
	d := *r
	d.Message = nil
	d.ID = append(json.RawMessage(nil), r.ID...)
	p := *r.Params
	p.Arguments = append(json.RawMessage(nil), p.Arguments...)
	p.InputResponses = nil
	p.Notifications = nil
	p.Task = append(json.RawMessage(nil), p.Task...)
	p.RequestID = nil
	if p.Meta != nil {
		m := *p.Meta
		m.ProgressToken = nil // tasks send no progress notifications
		m.clientInfo = append([]byte(nil), m.clientInfo...)
		p.Meta = &m
	}
	d.Params = &p
	d.in = &Inbound{Identity: r.in.Identity, BaseURL: r.in.BaseURL, OnPanic: r.in.OnPanic, Transport: r.in.Transport}
	return &d
}

// callTask runs a tool declared as a task. handled is false when the call
// should run in the request instead.
func (s *Server) callTask(ctx context.Context, req *Request, t *tool) (res any, handled bool, err error) {
	m := s.opts.tasks
	opts := backend.TaskOptions{Tool: t.name, TTL: t.taskTTL, PollInterval: t.taskPoll}
	if req.Era == EraModern {
		if !req.ClientCapabilities.HasExtension(protocol.TaskExtension) {
			if t.task == TaskRequired {
				return nil, true, missingTaskExtension()
			}
			return nil, false, nil
		}
		if t.taskByCode {
			res, err := s.callEscalating(ctx, req, t, opts)
			return res, true, err
		}
	} else {
		if len(req.Params.Task) == 0 || string(req.Params.Task) == "null" {
			if t.task == TaskRequired {
				return nil, true, &Error{Code: CodeMethodNotFound, Message: "Tool " + t.name + " runs only as a task: call it with params.task"}
			}
			return nil, false, nil
		}
		var hint struct {
			TTL *int64 `json:"ttl"`
		}
		if json.Unmarshal(req.Params.Task, &hint) == nil && hint.TTL != nil && *hint.TTL > 0 {
			opts.TTL = time.Duration(*hint.TTL) * time.Millisecond
		}
	}
	owner := req.Identity.Owner()
	task, ctl, err := m.Create(ctx, owner, opts)
	if err != nil {
		return nil, true, taskCreateError(err)
	}
	if req.Session != nil {
		s.watchLegacyTask(req.Session, owner, task.ID, ctl.Context())
	}
	d := req.detached()
	c := &Context{Context: ctl.Context(), req: d, srv: s, task: &taskRun{ctl: ctl, task: task, shape: taskShaperOf(ctx)}}
	s.observeTask(ctx, c)
	args := d.Params.Arguments
	go s.runTask(c, t, args)
	return &createdTask{task: task}, true, nil
}

func taskCreateError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: "The task could not be created: " + err.Error()}
}

// callEscalating runs a TaskStartedByCode tool in its own goroutine: it
// answers in the request until the code calls StartTask, and as a task
// after.
func (s *Server) callEscalating(ctx context.Context, req *Request, t *tool, opts backend.TaskOptions) (any, error) {
	c, err := s.callContext(ctx, req)
	if err != nil {
		return nil, err
	}
	d := req.detached()
	// The call's context follows the request until the call becomes a
	// task, then the task.
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopFollowing := context.AfterFunc(ctx, cancel)
	c.Context = callCtx
	// Until the call becomes a task it answers the request: its progress
	// and log messages go on the request's stream (Handle waits until
	// then, so the request stays valid).
	type outcome struct {
		res *ToolResult
		err error
	}
	done := make(chan outcome, 1)
	started := make(chan *backend.Task, 1)
	var once sync.Once
	c.startTask = func() error {
		var startErr error
		once.Do(func() {
			task, ctl, err := s.opts.tasks.Create(callCtx, d.Identity.Owner(), opts)
			if err != nil {
				startErr = taskCreateError(err)
				return
			}
			stopFollowing()
			context.AfterFunc(ctl.Context(), cancel)
			c.req = d
			c.req.in = &Inbound{Identity: d.in.Identity, BaseURL: d.in.BaseURL, OnPanic: d.in.OnPanic, Transport: d.in.Transport}
			c.task = &taskRun{ctl: ctl, task: task, shape: taskShaperOf(ctx)}
			s.observeTask(c.Context, c)
			started <- task
		})
		return startErr
	}
	args := d.Params.Arguments
	checked := d.Params.argsChecked(args)
	go func() {
		res, err := t.invoke(c, args, checked)
		if c.task != nil {
			s.finishTask(c, t, args, res, err)
			cancel()
			return
		}
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		stopFollowing()
		cancel()
		return s.finishRound(req, c, o.res, o.err)
	case task := <-started:
		return &createdTask{task: task}, nil
	}
}

// runTask runs a tool as a task from the start.
func (s *Server) runTask(c *Context, t *tool, args json.RawMessage) {
	res, err := t.invoke(c, args, false)
	s.finishTask(c, t, args, res, err)
}

// finishTask reports what the tool returned; questions park the task and
// the tool runs again with the answers, as many rounds as it asks.
func (s *Server) finishTask(c *Context, t *tool, args json.RawMessage, res *ToolResult, err error) {
	ctl := c.task.ctl
	seq := 0
	for errors.Is(err, ErrInputRequired) && c.rnd != nil && len(c.rnd.asked) > 0 {
		wire := make(map[string]json.RawMessage, len(c.rnd.asked))
		keys := make(map[string]string, len(c.rnd.asked))
		for key, q := range c.rnd.asked {
			seq++
			wk := key + "-" + strconv.Itoa(seq)
			b, _ := json.Marshal(q)
			wire[wk], keys[wk] = b, key
		}
		answers, werr := ctl.NeedInput(wire)
		c.rnd.settle(werr)
		if werr != nil {
			// Cancelled, expired or shutting down. A task the client
			// cancelled is already final and ignores this.
			e := &Error{Code: CodeInternalError, Message: "The task stopped while waiting for input: " + werr.Error()}
			c.task.end(TaskDone{Status: TaskFailed, Error: e})
			ctl.Fail(e)
			return
		}
		if c.rnd.answers == nil {
			c.rnd.answers = map[string]json.RawMessage{}
		}
		for wk, a := range answers {
			if key, ok := keys[wk]; ok {
				c.rnd.answers[key] = a
			}
		}
		c.rnd.asked = nil
		res, err = t.invoke(c, args, false)
	}
	if err != nil {
		if ae, _, ok := authError(err); ok {
			c.task.end(TaskDone{Status: TaskFailed, Error: ae})
			ctl.Fail(ae)
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			// Also when the task's context ended: a task the client
			// cancelled is already final and ignores this.
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		c.task.end(TaskDone{Status: TaskFailed, Error: e})
		ctl.Fail(e)
		return
	}
	res = c.task.shape.shape(c.Context, c.req, res)
	b, merr := res.MarshalJSON()
	if merr != nil {
		e := &Error{Code: CodeInternalError, Message: "the result could not be encoded: " + merr.Error()}
		c.task.end(TaskDone{Status: TaskFailed, Error: e})
		ctl.Fail(e)
		return
	}
	c.task.end(TaskDone{Status: TaskCompleted, ToolError: res.IsError})
	ctl.Complete(b, res.IsError)
}
