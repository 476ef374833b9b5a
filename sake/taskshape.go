package sake

import (
	"context"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// TaskResultFunc reshapes the final result of a call that became a task,
// as the middleware that gave it reshapes a result answered in the
// request. ctx is the task's own context; req is the call's request as
// the task keeps it. It returns the result to store (res itself when it
// changes nothing).
type TaskResultFunc func(ctx context.Context, req *Request, res *ToolResult) *ToolResult

// taskShaper is one TaskResultFunc in a context, and the ones of the
// middleware around it.
type taskShaper struct {
	fn    TaskResultFunc
	outer *taskShaper
}

type taskShaperKey struct{}

// WithTaskResult returns ctx carrying fn, for middleware to hand to next:
// if the call becomes a task, its result never passes back through the
// middleware (the request is answered with the task), so the server
// applies fn to the task's final result before the task manager stores
// it, and tasks/get and tasks/result answer what the request would have.
// Middleware that reshapes tool results (masks errors, caps sizes) uses
// it for the calls Request.MayBecomeTask reports. The functions of nested
// middleware run innermost first, as results pass through middleware.
func WithTaskResult(ctx context.Context, fn TaskResultFunc) context.Context {
	outer, _ := ctx.Value(taskShaperKey{}).(*taskShaper)
	return context.WithValue(ctx, taskShaperKey{}, &taskShaper{fn: fn, outer: outer})
}

// taskShaperOf is what WithTaskResult put in ctx, or nil.
func taskShaperOf(ctx context.Context) *taskShaper {
	sh, _ := ctx.Value(taskShaperKey{}).(*taskShaper)
	return sh
}

// shape applies the functions to res, innermost first.
func (sh *taskShaper) shape(ctx context.Context, req *Request, res *ToolResult) *ToolResult {
	for ; sh != nil && res != nil; sh = sh.outer {
		if out := sh.fn(ctx, req, res); out != nil {
			res = out
		}
	}
	return res
}

// MayBecomeTask reports whether the request is a tools/call that may run
// as a task: its tool may, the server has a task manager, and the caller
// asked for a task (params.task, in the 2025-11-25 era) or can take one
// (the tasks extension, in the modern era). Middleware uses it to pay for
// WithTaskResult only when it can matter.
func (r *Request) MayBecomeTask() bool {
	s := r.srv
	if r.Method != "tools/call" || s == nil || s.opts.tasks == nil || r.Params == nil {
		return false
	}
	// What the caller sent first: it rules out most calls without a
	// look at the tool.
	if r.Era == EraModern {
		if !r.ClientCapabilities.HasExtension(protocol.TaskExtension) {
			return false
		}
	} else if len(r.Params.Task) == 0 || string(r.Params.Task) == "null" {
		return false
	}
	t := s.comps.current().toolsByName[r.Params.Name]
	if v := askedVersion(r); t != nil && v != "" {
		t = pickVersion(t, v)
	}
	return t != nil && t.task != TaskNever
}
