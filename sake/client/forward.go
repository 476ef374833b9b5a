package client

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Forward describes a call made for another party, such as a proxy's
// own caller: what its requests declare to a 2026-07-28 server in place
// of the client's own capabilities and log level, and who answers the
// questions and receives the log messages the server sends with it.
type Forward struct {
	// Capabilities are the party's client capabilities.
	Capabilities protocol.ClientCapabilities
	// LogLevel is the level the party asked log messages at ("" for none).
	LogLevel protocol.LogLevel
	// To answers the server's questions of the call (with the
	// ForwardQuestions option) and receives its log messages; nil refuses
	// the questions and drops the log messages.
	To Caller
}

// Caller is the party a forwarded call is made for.
type Caller interface {
	// Elicit asks the party's user (elicitation/create).
	Elicit(ctx context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error)
	// Sample asks the party's model (sampling/createMessage).
	Sample(ctx context.Context, r *protocol.SamplingRequest) (*protocol.SamplingResult, error)
	// ListRoots asks the party for its roots (roots/list).
	ListRoots(ctx context.Context) ([]protocol.Root, error)
	// Log hands the party a log message of the call.
	Log(level protocol.LogLevel, logger string, data json.RawMessage)
}

type forwardKey struct{}

// WithForward returns a context whose calls are made for the party f
// describes. The in-memory, HTTP and stdio transports deliver the
// server's messages of such a call with its context, so that they reach
// f.To.
func WithForward(ctx context.Context, f *Forward) context.Context {
	return context.WithValue(ctx, forwardKey{}, f)
}

// forwardOf returns the Forward of a forwarded call's context, or nil.
func forwardOf(ctx context.Context) *Forward {
	if ctx == nil {
		return nil
	}
	f, _ := ctx.Value(forwardKey{}).(*Forward)
	return f
}

// IsForwarded reports whether ctx is the context of a forwarded call
// (see WithForward).
func IsForwarded(ctx context.Context) bool { return forwardOf(ctx) != nil }

// errNoCaller refuses a question that belongs to no forwarded call.
var errNoCaller = errors.New("client: a question from the upstream server outside any forwarded call (over stdio, a question that comes while several forwarded calls run belongs to none: the transport does not say which; nor does roots/list, a question of the session every caller shares)")

func callerOf(ctx context.Context) (Caller, error) {
	if f := forwardOf(ctx); f != nil && f.To != nil {
		return f.To, nil
	}
	return nil, errNoCaller
}

// forwardLog hands a log message of a forwarded call to its caller.
func forwardLog(ctx context.Context, params json.RawMessage) bool {
	c, err := callerOf(ctx)
	if err != nil {
		return false
	}
	var m logParams
	if json.Unmarshal(params, &m) != nil {
		return false
	}
	c.Log(m.Level, m.Logger, m.Data)
	return true
}

// logParams are the params of notifications/message.
type logParams struct {
	Level  protocol.LogLevel `json:"level"`
	Logger string            `json:"logger"`
	Data   json.RawMessage   `json:"data"`
}

// ForwardQuestions makes a client used by a proxy pass the remote
// server's questions (elicitation, sampling, roots) to the caller of
// the forwarded call they come with (see WithForward), and declares the
// capabilities for them. It also asks for every log message (a
// handshake-era session whose server declares logging: LogLevel debug,
// unless set; 2026-07-28: each forwarded request with its caller's
// level, the proxy's own requests with none): those of a forwarded call
// go to its caller at the caller's level, where the transport tells
// which call they belong to (HTTP, in memory; over stdio, 2026-07-28
// requests ask for log messages with their caller's level one at a time,
// and a request made while another one receives them goes without; a
// handshake-era session's log message is the one forwarded call's in
// flight, and with none or several it is the session's, see Filter.Logs). A
// question belongs to the forwarded call it came with (HTTP, in memory);
// over stdio a session's request names no call, so it belongs to the one
// forwarded call in flight, except roots/list: the roots are the
// session's, which every caller shares, and a server asks for them when
// it likes (after the handshake, say), so over stdio it belongs to no
// call. A question outside any forwarded call (none runs, or, over stdio,
// several do, or it is roots/list) is refused: it is never asked to the
// wrong caller.
func ForwardQuestions() Option {
	return func(o *options) {
		o.forwarding = true
		if o.logLevel == "" {
			o.logLevel = protocol.LevelDebug
		}
		OnElicit(func(ctx context.Context, r *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			c, err := callerOf(ctx)
			if err != nil {
				return nil, err
			}
			return c.Elicit(ctx, r)
		})(o)
		OnSample(func(ctx context.Context, r *protocol.SamplingRequest) (*protocol.SamplingResult, error) {
			c, err := callerOf(ctx)
			if err != nil {
				return nil, err
			}
			return c.Sample(ctx, r)
		})(o)
		OnRoots(func(ctx context.Context) ([]protocol.Root, error) {
			c, err := callerOf(ctx)
			if err != nil {
				return nil, err
			}
			return c.ListRoots(ctx)
		})(o)
	}
}

// logSlotter is a transport whose log messages do not say which request
// they belong to (stdio): one request at a time may ask for them.
type logSlotter interface {
	takeLogSlot(ctx context.Context) (release func(), ok bool)
}

// envelopeMeta renders the _meta members of a forwarded request,
// appended to dst. A
// request asks for log messages only where they can reach its caller: a
// stream (subscriptions/listen) never carries them, and over stdio only
// one request at a time may.
func (c *Client) envelopeMeta(ctx context.Context, env *Forward, long bool, dst []byte) ([]byte, func()) {
	level, release := env.LogLevel, func() {}
	if long {
		level = ""
	}
	if s, ok := c.t.(logSlotter); ok && level != "" {
		var got bool
		if release, got = s.takeLogSlot(ctx); !got {
			level = ""
		}
	}
	return c.renderMeta(dst, env.Capabilities, level), release
}

// Context returns a context that ends when the client closes: work done
// for the client beyond one call (a proxy cancelling a remote task after
// its caller left) runs under it.
func (c *Client) Context() context.Context { return c.ctx }

// Logger returns the logger the client reports to (the Logger option).
func (c *Client) Logger() *slog.Logger { return c.o.logger }

// AnswerInput answers the inputRequests of a 2026-07-28 input_required
// result or task with the client's handlers (OnElicit, OnSample, OnRoots,
// OnQuestion): the answers by key, as inputResponses carries them.
func (c *Client) AnswerInput(ctx context.Context, requests map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	return c.answerAll(ctx, requests)
}

// FollowTask waits for the end of the task t the server started for a
// call, answering its questions with the client's handlers on the way,
// and returns its result.
func (c *Client) FollowTask(ctx context.Context, t *Task) (*protocol.ToolResult, error) {
	return c.followTask(ctx, t)
}
