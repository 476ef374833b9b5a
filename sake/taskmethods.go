package sake

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// The handlers of the tasks/* methods.

func (s *Server) taskFor(ctx context.Context, req *Request) (*backend.Task, error) {
	if req.Params.TaskID == "" {
		return nil, InvalidParams("Invalid params: %s needs a taskId", req.Method)
	}
	t, err := s.opts.tasks.Get(ctx, req.Identity.Owner(), req.Params.TaskID)
	return t, taskError(err)
}

func taskError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, backend.ErrTaskNotFound) {
		return &Error{Code: CodeInvalidParams, Message: "Task not found", Data: map[string]string{"reason": "unknown or expired taskId"}}
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}

func (s *Server) requireTaskExtension(req *Request) error {
	if req.Era == EraModern && !req.ClientCapabilities.HasExtension(protocol.TaskExtension) {
		return missingTaskExtension()
	}
	return nil
}

func (s *Server) tasksGet(ctx context.Context, req *Request, _ *registry) (any, error) {
	if err := s.requireTaskExtension(req); err != nil {
		return nil, err
	}
	t, err := s.taskFor(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.Era == EraModern {
		return &detailedTask{task: t}, nil
	}
	return &legacyTask{task: t}, nil
}

func (s *Server) tasksUpdate(ctx context.Context, req *Request, _ *registry) (any, error) {
	if err := s.requireTaskExtension(req); err != nil {
		return nil, err
	}
	if req.Params.TaskID == "" {
		return nil, InvalidParams("Invalid params: tasks/update needs a taskId")
	}
	var responses map[string]json.RawMessage
	if raw := req.Params.InputResponses; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &responses); err != nil {
			return nil, InvalidParams("Invalid params: inputResponses must be an object of answers keyed as the inputRequests were")
		}
		for k, v := range responses {
			responses[k] = append(json.RawMessage(nil), v...)
		}
	}
	if err := s.opts.tasks.Answer(ctx, req.Identity.Owner(), req.Params.TaskID, responses); err != nil {
		return nil, taskError(err)
	}
	return emptyResult{}, nil
}

func (s *Server) tasksCancel(ctx context.Context, req *Request, _ *registry) (any, error) {
	if err := s.requireTaskExtension(req); err != nil {
		return nil, err
	}
	if req.Era != EraModern {
		t, err := s.taskFor(ctx, req)
		if err != nil {
			return nil, err
		}
		if t.Terminal() {
			return nil, InvalidParams("Task %s has already finished (%s)", t.ID, t.Status)
		}
	}
	t, err := s.opts.tasks.Cancel(ctx, req.Identity.Owner(), req.Params.TaskID)
	if err != nil {
		return nil, taskError(err)
	}
	if req.Era == EraModern {
		return emptyResult{}, nil
	}
	return &legacyTask{task: t}, nil
}

func (s *Server) tasksList(ctx context.Context, req *Request, _ *registry) (any, error) {
	cursor := ""
	if req.Params.Cursor != nil {
		cursor = *req.Params.Cursor
	}
	tasks, next, err := s.opts.tasks.List(ctx, req.Identity.Owner(), cursor, s.pageSize())
	if err != nil {
		return nil, InvalidParams("Invalid cursor")
	}
	return &legacyTaskList{tasks: tasks, next: next}, nil
}

// tasksResult (legacy) waits for the task to finish, asking the client on
// this request's stream whatever the task needs meanwhile.
func (s *Server) tasksResult(ctx context.Context, req *Request, _ *registry) (any, error) {
	owner, id := req.Identity.Owner(), req.Params.TaskID
	if id == "" {
		return nil, InvalidParams("Invalid params: tasks/result needs a taskId")
	}
	c := s.newContext(ctx, req)
	for {
		t, err := s.opts.tasks.Wait(ctx, owner, id, func(t *backend.Task) bool {
			return t.Terminal() || (t.Status == TaskInputRequired && len(t.InputRequests) > 0)
		})
		if err != nil {
			return nil, taskError(err)
		}
		if t.Terminal() {
			if t.Status == TaskFailed && t.Error != nil {
				return nil, t.Error
			}
			if t.Status == TaskCancelled {
				return nil, &Error{Code: CodeInternalError, Message: "Task " + t.ID + " was cancelled"}
			}
			return &relatedResult{task: t}, nil
		}
		answers := map[string]json.RawMessage{}
		for key, raw := range t.InputRequests {
			var q protocol.InputRequest
			if json.Unmarshal(raw, &q) != nil {
				continue
			}
			a, err := c.askSession(key, q.Method, q.Params)
			if err != nil {
				return nil, err
			}
			answers[key] = a
		}
		if err := s.opts.tasks.Answer(ctx, owner, id, answers); err != nil {
			return nil, taskError(err)
		}
	}
}
