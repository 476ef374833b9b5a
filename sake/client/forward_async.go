package client

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/sakemcp/sake-go/sake/internal/forwardcall"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func init() {
	forwardcall.StartTool = func(c any, ctx context.Context, name string, args any, afterBurst func(func()) bool, done func(*protocol.ToolResult, any, error, func(func()) bool)) bool {
		return c.(*Client).startToolAsync(ctx, name, args, afterBurst, done)
	}
}

// startToolAsync is StartToolEncoded without waiting: the request is
// written and done is called with the outcome on the goroutine that reads
// the answer (or, for a round of questions or a failure to decode, on one
// of its own). Only a plain call goes this way: over stdio, without a
// retry policy, a progress handler, a log level to forward or a task to
// ask for; it returns false for any other, having sent nothing.
func (c *Client) startToolAsync(ctx context.Context, name string, args any, afterBurst func(func()) bool, done func(*protocol.ToolResult, any, error, func(func()) bool)) bool {
	t, ok := c.t.(*streamTransport)
	if !ok || c.isClosed() || progressOf(ctx) != nil {
		return false
	}
	if pol := c.o.retry; pol != nil && pol.MaxAttempts >= 2 && c.retryable(ctx, "tools/call", &callOpts{name: name, hasName: true}) {
		return false
	}
	info := c.Info()
	env := forwardOf(ctx)
	if env != nil && env.LogLevel != "" && info.Era == protocol.EraModern {
		return false
	}
	if info.Era != protocol.EraModern && !c.o.noTasks && c.legacyTaskTool(ctx, name) {
		return false
	}
	if c.o.cache != nil && cacheable["tools/call"] {
		return false
	}
	pp := getScratch()
	defer putScratch(pp)
	p, ok := (&callParams{Name: name, Arguments: args}).appendFast((*pp)[:0])
	if !ok {
		return false
	}
	*pp = p
	id := c.nextID.Add(1)
	meta := c.meta
	bp := getScratch()
	defer putScratch(bp)
	if env != nil && info.Era == protocol.EraModern {
		meta = c.renderMeta((*bp)[:0], env.Capabilities, "")
		*bp = meta
	}
	mp := getScratch()
	defer putScratch(mp)
	body := c.encodeMeta((*mp)[:0], id, "tools/call", p, nil, c.o.onProgress != nil, info.Era, meta, versionMeta(ctx))
	*mp = body
	m := &message{id: id, method: "tools/call", era: info.Era, version: info.ProtocolVersion, body: body,
		name: name, hasName: true}
	return t.roundTripAsync(ctx, m, func(line []byte, err error, answered func(func()) bool) {
		if err != nil {
			done(nil, nil, err, answered)
			return
		}
		raw, err := decodeValidResponse(line)
		if err != nil {
			done(nil, nil, err, answered)
			return
		}
		if bytes.Contains(raw, []byte(`"input_required"`)) {
			// Rounds of questions: answered on a goroutine of their own,
			// since answering may take the caller's time.
			go func() {
				p, err := encodeParams("tools/call", &callParams{Name: name, Arguments: args})
				if err == nil {
					raw, err = c.rounds(ctx, "tools/call", p, &callOpts{name: name, hasName: true}, cacheLook{}, json.RawMessage(raw))
				}
				c.finishAsync(raw, err, done, nil)
			}()
			return
		}
		c.finishAsync(raw, nil, done, answered)
	}, afterBurst)
}

// finishAsync hands the outcome of an asynchronous tools/call to done.
// answered is the reading goroutine's afterAnswers, or nil.
func (c *Client) finishAsync(raw json.RawMessage, err error, done func(*protocol.ToolResult, any, error, func(func()) bool), answered func(func()) bool) {
	if err != nil {
		done(nil, nil, err, answered)
		return
	}
	res, task, err := toolOutcome(raw, true)
	if task != nil {
		done(nil, task, err, answered)
		return
	}
	done(res, nil, err, answered)
}
