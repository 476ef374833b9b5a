package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// remoteTask is the remote task a task of the proxy follows.
type remoteTask struct {
	id string // the remote server's task id, never shown to callers

	mu       sync.Mutex
	round    int  // input rounds answered so far
	finished bool // the remote task reached its end
}

// cancelRemoteTimeout bounds the tasks/cancel the proxy sends upstream
// when its own task ends before the remote one.
const cancelRemoteTimeout = 10 * time.Second

// callTaskTool forwards a call the remote server may answer with a task.
// A remote task makes the call a task of the proxy's (owned by the caller,
// with its own id): the caller polls, answers and cancels it through the
// proxy's task methods, and the proxy follows the remote task with its
// own credentials. The handler runs again when the caller has answered
// the remote task's questions; it then carries on with the same remote
// task.
func (p *proxy) callTaskTool(c *sake.Context, remoteName, version string, args json.RawMessage) (*sake.ToolResult, error) {
	if id := c.TaskID(); id != "" {
		p.mu.Lock()
		rt := p.running[id]
		p.mu.Unlock()
		if rt != nil {
			return p.drive(c, rt)
		}
	}
	fctx, fw := p.forward(c)
	// The result is left encoded: the dispatcher passes it on as the
	// remote sent it, unless something of the proxy's server looks at it.
	res, task, err := p.remote.StartToolEncoded(askVersion(fctx, version), remoteName, fw.checked(args))
	if err = fw.done(err); err != nil {
		return nil, err
	}
	if task == nil {
		return res, nil
	}
	rt := &remoteTask{id: task.ID}
	if err := c.StartTask(); err != nil {
		p.cancelRemote(rt)
		return nil, err
	}
	id := c.TaskID()
	if id == "" {
		// The caller cannot take a task: follow it within the call.
		fctx, fw := p.forwardKeyed(c, "", 0)
		res, err := p.remote.FollowTask(fctx, task)
		if err = fw.done(err); err != nil {
			var te *sake.ToolError
			if errors.As(err, &te) {
				return res, nil
			}
			return nil, err
		}
		return res, nil
	}
	p.mu.Lock()
	p.running[id] = rt
	p.mu.Unlock()
	// The proxy's task ends (completed, failed, cancelled by its owner,
	// expired, shut down): forget it, and cancel the remote task if it
	// still runs.
	context.AfterFunc(c, func() {
		p.mu.Lock()
		delete(p.running, id)
		p.mu.Unlock()
		rt.mu.Lock()
		finished := rt.finished
		rt.mu.Unlock()
		if !finished {
			p.cancelRemote(rt)
		}
	})
	return p.drive(c, rt)
}

// drive follows the remote task until it ends, putting its questions to
// the caller: a question not yet answered parks the proxy's task
// (input_required) until the caller answers, and the handler runs again.
func (p *proxy) drive(c *sake.Context, rt *remoteTask) (*sake.ToolResult, error) {
	for {
		rt.mu.Lock()
		round := rt.round
		rt.mu.Unlock()
		fctx, fw := p.forwardKeyed(c, "r"+strconv.Itoa(round)+"_", 0)
		t, err := p.remote.AwaitTask(fctx, rt.id)
		if err != nil {
			return nil, fw.done(err)
		}
		switch t.Status {
		case sake.TaskInputRequired:
			if t.StatusMessage != "" {
				c.Progress(0, 0, t.StatusMessage)
			}
			answers, err := p.remote.AnswerInput(fctx, t.InputRequests)
			if err != nil {
				return nil, fw.done(err)
			}
			if err := p.remote.UpdateTask(fctx, rt.id, answers); err != nil {
				return nil, fw.done(err)
			}
			fw.done(nil)
			rt.mu.Lock()
			rt.round++
			rt.mu.Unlock()
			continue
		}
		fw.done(nil)
		rt.mu.Lock()
		rt.finished = true
		rt.mu.Unlock()
		switch t.Status {
		case sake.TaskCompleted:
			if t.Result == nil {
				return nil, sake.NewError(sake.CodeInternalError, "the upstream task completed without a result")
			}
			return t.Result, nil
		case sake.TaskFailed:
			if t.Error != nil {
				return nil, t.Error
			}
			return nil, sake.NewError(sake.CodeInternalError, "the upstream task failed: %s", t.StatusMessage)
		default:
			return nil, sake.NewError(sake.CodeInternalError, "the upstream task was cancelled")
		}
	}
}

// cancelRemote asks the remote server to cancel its task, with the
// proxy's own credentials, whatever became of the call that started it.
func (p *proxy) cancelRemote(rt *remoteTask) {
	ctx, cancel := context.WithTimeout(p.remote.Context(), cancelRemoteTimeout)
	defer cancel()
	if err := p.remote.CancelTask(ctx, rt.id); err != nil && p.remote.Context().Err() == nil {
		p.remote.Logger().Debug("client: the proxy could not cancel an upstream task", "err", err)
	}
}
