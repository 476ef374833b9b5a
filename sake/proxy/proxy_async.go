package proxy

import (
	"encoding/json"
	"errors"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/internal/bridge"
	"github.com/sakemcp/sake-go/sake/internal/forwardcall"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// startsWithoutWaiting lets the calls of def start without holding a
// goroutine while the remote works, when the dispatcher and the client
// both can (see sake's deferred.go and client's forward_async.go): the
// request is written to the remote and the reply is finished on the
// goroutine that reads the remote's answer. A call that cannot go that
// way runs def's handler, which waits.
func (p *proxy) startsWithoutWaiting(def *sake.ToolDef, remoteName, version string) {
	bridge.Root().ForwardTool(def, func(c *sake.Context, args json.RawMessage, done func(*sake.ToolResult, error, func(func()) bool)) bool {
		return p.startCall(c, remoteName, version, args, done)
	})
}

// startCall forwards one call without waiting for its answer; it reports
// false, having done nothing, when the call must take the handler's path.
func (p *proxy) startCall(c *sake.Context, remoteName, version string, args json.RawMessage, done func(*sake.ToolResult, error, func(func()) bool)) bool {
	if len(c.ProgressToken()) > 0 || c.TaskID() != "" {
		return false
	}
	fctx, fw := p.forwardWith(c, "", p.cfg.callTimeout(), false)
	if !fw.acquired {
		fw.done(nil) // the handler answers that the remote is busy
		return false
	}
	started := forwardcall.StartTool(p.remote, askVersion(fctx, version), remoteName, fw.checked(args), bridge.Root().AfterBurst(c), func(res *protocol.ToolResult, task any, err error, answered func(func()) bool) {
		if t, ok := task.(*client.Task); ok && err == nil {
			// The remote made the call a task: follow it within the
			// call, as the handler does for a caller that cannot take
			// one, on a goroutine of its own since it lasts.
			fw.done(nil)
			go func() {
				fctx, fw := p.forwardWith(c, "", 0, false)
				res, err := p.remote.FollowTask(fctx, t)
				res, err = p.settle(res, fw.done(err))
				done(res, err, nil)
			}()
			return
		}
		res, err = p.settle(res, fw.done(err))
		done(res, err, answered)
	})
	if !started {
		fw.done(nil)
		return false
	}
	return true
}

// settle is what the handler returns for a forwarded call's result and
// its error as caller.done made it: the remote tool's own error result
// as it is.
func (p *proxy) settle(res *protocol.ToolResult, err error) (*sake.ToolResult, error) {
	p.cfg.localToolResult(res)
	if err != nil {
		var te *sake.ToolError
		if errors.As(err, &te) {
			return res, nil
		}
		return nil, err
	}
	return res, nil
}
