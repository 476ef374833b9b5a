package sake

import (
	"context"
	"encoding/json"
	"errors"
)

// A call forwarded to another server over a stream (a proxy's tool with a
// stdio command behind it) need not hold a goroutine while the other
// server works: the request is written, Handle returns, and the reply is
// finished on the goroutine that reads the other server's answer, then
// handed to the transport. The requests that follow are read and
// forwarded meanwhile, as a line relay would, with no goroutine woken per
// call. A call is forwarded so only when nothing stands between the
// dispatcher and the tool that expects to see it return: no middleware
// (Use or UseObserving; Request hooks are told at the end), a transport
// that can write a reply later (stdio), a tool that knows how
// (forwardFunc), and a plain call (no task, no request state). Any other
// call runs the tool's handler as usual.

// replyDeferrer is the method set of transport.ReplyDeferrer, which the
// server looks for on a Stream.
type replyDeferrer interface {
	Stream
	DeferReply() (respond func(body []byte, afterBurst func(func()) bool))
}

// burstReader is the method set of transport.BurstReader.
type burstReader interface {
	Stream
	AfterBurst(f func()) bool
}

// forwardFunc starts a call of a tool on another server without waiting
// for it. It returns false when it cannot, having done nothing: the tool's
// handler runs then. Otherwise it calls done exactly once, on any
// goroutine, perhaps before it returns, and may give done a function like
// transport.BurstReader.AfterBurst for the burst of answers being read
// (the reply's flush may wait for its end). args were validated against
// the tool's input schema.
type forwardFunc func(c *Context, args json.RawMessage, done func(*ToolResult, error, func(func()) bool)) bool

// errDeferred is what the handler chain returns for a request whose reply
// comes later.
var errDeferred = errors.New("sake: the reply comes later")

// deferral is a request that may reply later: what Handle's frames would
// have done after the handler returned, kept for finish.
type deferral struct {
	m       *message
	respond func(body []byte, afterBurst func(func()) bool) // the transport's, once deferred
	// The request's context and its cancel (nil when untracked), and the
	// outcome for the Request hook: out0 is handleRequest's (nil without a
	// hook), out the storage observed lends it.
	ctx      context.Context
	cancel   context.CancelFunc
	out0     *RequestDone
	out      RequestDone
	hookDone func(RequestDone)
	hooked   bool
	// The call's Context and tool.
	c *Context
	t *tool
}

// offerDeferral lets the request reply later if the transport can take a
// reply later and no middleware wraps the handler.
func (m *message) offerDeferral() {
	s := m.req.srv
	if len(s.opts.middleware) > 0 || *m.env.Method != "tools/call" || m.in.Stream == nil {
		return
	}
	if _, ok := m.in.Stream.(replyDeferrer); !ok {
		return
	}
	m.req.dfr = &deferral{m: m}
}

// forward starts tool t's call on another server when it can; it reports
// whether it did (the caller returns errDeferred then).
func (s *Server) forward(ctx context.Context, req *Request, t *tool) bool {
	d := req.dfr
	p := req.Params
	if d == nil || t.forward == nil || t.via != nil || p.RequestState != nil || len(p.InputResponses) > 0 {
		return false
	}
	if len(p.Task) > 0 && string(p.Task) != "null" {
		return false
	}
	args := normalArgs(p.Arguments)
	if t.call.argType != rawMessageType || !t.validArgs(args, p.argsChecked(p.Arguments)) {
		return false // the handler answers it, the same way
	}
	c := s.newContext(ctx, req)
	d.c, d.t = c, t
	// The reply is encoded in a buffer of its own: the transport's is
	// reused once Handle returns.
	buf := req.replyBuf
	req.replyBuf = nil
	d.respond = req.in.Stream.(replyDeferrer).DeferReply()
	if !t.forward(c, args, d.finish) {
		d.respond(nil, nil)
		d.respond, d.c, d.t = nil, nil, nil
		req.replyBuf = buf
		*c = Context{}
		req.ctx = c
		return false
	}
	return true
}

// validArgs reports whether args are JSON that t's input schema accepts,
// as decodeValidated would, without building the tool's argument.
func (t *tool) validArgs(args json.RawMessage, checked bool) bool {
	into := argMaps.Get().(map[string]any)
	defer putArgMap(into)
	generic, err := decodeArgs(args, t.input.keys, checked, into)
	return err == nil && t.input.validator.Validate(generic) == nil
}

// normalArgs is what a tool is given for absent arguments: {}.
func normalArgs(args json.RawMessage) json.RawMessage {
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}")
	}
	return args
}

// finish answers a forwarded call with its outcome: what the tool's
// invocation, handleRequest, the Request hook and Handle would have done
// after the handler returned, then the transport writes the reply.
func (d *deferral) finish(res *ToolResult, callErr error, afterBurst func(func()) bool) {
	m, c, t := d.m, d.c, d.t
	req := &m.req
	s := req.srv
	var out any
	var err error
	if callErr != nil {
		var r *ToolResult
		r, err = toolFailure(callErr)
		if r != nil {
			out = r
		}
	} else {
		if res == nil {
			res = &ToolResult{Content: []Content{}}
		}
		if res.Encoded() != nil && !c.passesEncoded() {
			if derr := res.Decode(); derr != nil {
				s.logger.Warn("sake: a tool's encoded result is not a tools/call result", "tool", t.name, "err", derr)
				res = ErrorResult("Tool %s failed: its result could not be read.", t.name)
			}
		}
		out = res
	}
	out, err = s.finishRound(req, c, out, err)
	// The reply is encoded in a pooled buffer, which the transport's
	// respond copies out.
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	req.replyBuf = bp
	reply := s.outcome(d.ctx, req, out, err, d.out0)
	if d.cancel != nil {
		d.cancel()
	}
	if d.hooked {
		showDone(d.hookDone, &d.out, reply)
	}
	m.settle(&reply)
	body := reply.Body
	if reply.Cancelled {
		body = nil
	}
	d.respond(body, afterBurst)
}
