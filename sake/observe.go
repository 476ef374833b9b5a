package sake

import (
	"context"

	"github.com/sakemcp/sake-go/sake/backend"
)

// Hooks let an observer see what the server does, for tracing and metrics:
// sake/otel implements them with OpenTelemetry, and they serve any other
// telemetry as well. Every field is optional. A server without the Observe
// option calls none of them, so they cost nothing there.
//
// Hooks run on the goroutines that do the work: they must be quick, must
// not block, and must not retain the *Request (or anything reached from
// it) after they return, except through what they return.
type Hooks struct {
	// Request is called for every request and notification once it is
	// decoded and its era is known, before it is validated or handled.
	// The context it returns (nil keeps ctx) is the one the request is
	// handled with, so that spans and values it carries reach middleware
	// and user code. done, when not nil, is called once with the outcome
	// when the reply is ready; by then req holds its protocol version and
	// session.
	Request func(ctx context.Context, req *Request) (_ context.Context, done func(RequestDone))

	// Panic is called when user code panics, after the panic has become
	// an error result, with the context the code ran with.
	Panic func(ctx context.Context, recovered any, stack []byte)

	// Input is called when code asks the client something (Context.Elicit,
	// Sample, ListRoots) and the answer is not known yet. done is called
	// once when the question is settled: in the legacy era when the
	// client answers the request sent on its session (err says why it did
	// not); in the modern era when the round ends with input_required; in
	// a task when the answers arrive.
	Input func(ctx context.Context, q Question) (done func(err error))

	// Task is called when a call becomes a task. reqCtx is the context of
	// the request that created it; workCtx is the task's own context, which
	// ends when the task is cancelled. The returned context (nil keeps
	// workCtx) must derive from workCtx: the task's code runs with it.
	// done is called once when the task's work ends.
	Task func(reqCtx, workCtx context.Context, t *backend.Task) (_ context.Context, done func(TaskDone))

	// Session is called when a legacy session opens, from the initialize
	// request that opens it; closed is called once when it closes.
	Session func(ctx context.Context, req *Request, s *Session) (closed func())
}

// RequestDone is the outcome of one request, as Hooks.Request sees it.
type RequestDone struct {
	// Reply is what the dispatcher answers; its Body is nil for a
	// notification. Do not modify it, and do not retain it after done
	// returns: the body may be the transport's buffer, written out and
	// reused for the next reply once done returns (HandleInto). A hook
	// that keeps the body keeps a copy (bytes.Clone(d.Reply.Body)).
	Reply *Reply
	// Error is the JSON-RPC error answered, nil when the request
	// succeeded.
	Error *Error
	// Result is what the handler returned when it succeeded: for
	// tools/call a *ToolResult, unless the call became a task or asked
	// for input (see ResultType).
	Result any
	// ResultType is the modern resultType of an interim answer:
	// "input_required" or "task"; "" for a complete result.
	ResultType string
	// ToolError says a tools/call result has isError set.
	ToolError bool
}

func (d *RequestDone) observeResult(res any) {
	d.Result = res
	switch r := res.(type) {
	case *ToolResult:
		d.ToolError = r.IsError
	case *inputRequiredResult:
		d.ResultType = "input_required"
	case *createdTask:
		d.ResultType = "task"
	}
}

// Question is what code asked the client, as Hooks.Input sees it.
type Question struct {
	// Method is elicitation/create, sampling/createMessage or roots/list.
	Method string
	// Key is the key the code asked with.
	Key string
	// RequestID is the JSON-RPC id of the request sent to a legacy
	// client; "" when the question travels in a result (modern era,
	// tasks).
	RequestID string
}

// TaskDone is how a task's work ended, as Hooks.Task sees it.
type TaskDone struct {
	// Status is TaskCompleted, TaskFailed or TaskCancelled.
	Status string
	// ToolError says the completed result has isError set.
	ToolError bool
	// Error is the error a failed task reports.
	Error *Error
}

// Observe installs hooks that observe the server's work. Given more than
// once, every set of hooks is called, in the order given.
func Observe(h Hooks) Option {
	return func(o *options) { o.observe(h, true) }
}

// ObserveOutcome installs hooks, like Observe, whose Request hook only
// observes the outcome of each request: its done function may look at
// RequestDone's Reply, Error, ResultType and ToolError, and of Result at
// nothing but a *ToolResult's IsError. Access logs, metrics and traces
// that record no result are such hooks.
//
// What this promise buys, as with UseObserving: a tool result left
// encoded (a proxy's, see protocol.ToolResultFromWire) still goes into
// the reply as the remote wrote it, without being decoded, which
// Observe's Request hooks prevent since they may look. A hook that reads
// the result anyway may find its Content and StructuredContent empty.
// Hooks given with Observe and ObserveOutcome are called together, in
// the order given.
func ObserveOutcome(h Hooks) Option {
	return func(o *options) { o.observe(h, false) }
}

// observe adds h's hooks; readsResults says its Request hook may read
// what the handler returned.
func (o *options) observe(h Hooks, readsResults bool) {
	if h.Request != nil {
		o.requestHook = chainRequest(o.requestHook, h.Request)
	}
	if !readsResults {
		h.Request = nil
	}
	if o.hooks == nil {
		o.hooks = &h
		return
	}
	o.hooks = chainHooks(o.hooks, &h)
}

// chainRequest calls a's Request hook, then b's; their done functions in
// the opposite order.
func chainRequest(a, b func(context.Context, *Request) (context.Context, func(RequestDone))) func(context.Context, *Request) (context.Context, func(RequestDone)) {
	if a == nil {
		return b
	}
	return func(ctx context.Context, req *Request) (context.Context, func(RequestDone)) {
		ctx1, d1 := a(ctx, req)
		if ctx1 == nil {
			ctx1 = ctx
		}
		ctx2, d2 := b(ctx1, req)
		if ctx2 == nil {
			ctx2 = ctx1
		}
		return ctx2, func(r RequestDone) {
			if d2 != nil {
				d2(r)
			}
			if d1 != nil {
				d1(r)
			}
		}
	}
}

// chainHooks calls a's hooks, then b's.
func chainHooks(a, b *Hooks) *Hooks {
	c := *a
	// Request is the marker of hooks that may read results; the dispatcher
	// calls options.requestHook, which chains every Request hook.
	if c.Request == nil {
		c.Request = b.Request
	}
	if b.Panic != nil {
		if a.Panic == nil {
			c.Panic = b.Panic
		} else {
			c.Panic = func(ctx context.Context, r any, stack []byte) { a.Panic(ctx, r, stack); b.Panic(ctx, r, stack) }
		}
	}
	if b.Input != nil {
		if a.Input == nil {
			c.Input = b.Input
		} else {
			c.Input = func(ctx context.Context, q Question) func(error) {
				d1, d2 := a.Input(ctx, q), b.Input(ctx, q)
				return func(err error) {
					if d2 != nil {
						d2(err)
					}
					if d1 != nil {
						d1(err)
					}
				}
			}
		}
	}
	if b.Task != nil {
		if a.Task == nil {
			c.Task = b.Task
		} else {
			c.Task = func(reqCtx, workCtx context.Context, t *backend.Task) (context.Context, func(TaskDone)) {
				w1, d1 := a.Task(reqCtx, workCtx, t)
				if w1 == nil {
					w1 = workCtx
				}
				w2, d2 := b.Task(reqCtx, w1, t)
				if w2 == nil {
					w2 = w1
				}
				return w2, func(r TaskDone) {
					if d2 != nil {
						d2(r)
					}
					if d1 != nil {
						d1(r)
					}
				}
			}
		}
	}
	if b.Session != nil {
		if a.Session == nil {
			c.Session = b.Session
		} else {
			c.Session = func(ctx context.Context, req *Request, s *Session) func() {
				c1, c2 := a.Session(ctx, req, s), b.Session(ctx, req, s)
				return func() {
					if c2 != nil {
						c2()
					}
					if c1 != nil {
						c1()
					}
				}
			}
		}
	}
	return &c
}

// Transport returns the name of the transport the request came over:
// "http" (sake/plug), "stdio" (sake/stdio), "memory" (sake/saketest
// without HTTP), a custom transport's own name, or "" when it did not say.
func (r *Request) Transport() string {
	if r.in == nil {
		return ""
	}
	return r.in.Transport
}
