package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Accept answers a form with content.
func Accept(content any) *protocol.ElicitResult {
	return &protocol.ElicitResult{Action: protocol.Accept, Content: content}
}

// Decline says the user refused.
func Decline() *protocol.ElicitResult { return &protocol.ElicitResult{Action: protocol.Decline} }

// Cancel says the user dismissed the question.
func Cancel() *protocol.ElicitResult { return &protocol.ElicitResult{Action: protocol.Cancel} }

// handlerError is the JSON-RPC error the server gets when a handler of
// the client's fails: a *protocol.Error it returned (or wrapped) as it is, any
// other error as -32603 with the error's text.
func handlerError(err error) *protocol.Error {
	if e, ok := errors.AsType[*protocol.Error](err); ok {
		return e
	}
	return protocol.NewError(protocol.CodeInternalError, "%v", err)
}

// answer computes the client's answer to one question of the server.
func (c *Client) answer(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *protocol.Error) {
	fail := func(code int, format string, args ...any) (json.RawMessage, *protocol.Error) {
		return nil, protocol.NewError(code, format, args...)
	}
	if c.o.onQuestion != nil {
		c.o.onQuestion(method, params)
	}
	switch method {
	case "elicitation/create":
		if c.o.elicit == nil {
			return fail(protocol.CodeMethodNotFound, "this client does not answer elicitations")
		}
		var req protocol.ElicitRequest
		if len(params) > 0 {
			if err := json.Unmarshal(params, &req); err != nil {
				return fail(protocol.CodeInvalidParams, "elicitation/create: %v", err)
			}
		}
		if req.Mode == "" {
			req.Mode = "form"
		}
		res, err := c.o.elicit(ctx, &req)
		if err != nil {
			return nil, handlerError(err)
		}
		if res == nil {
			res = Cancel()
		}
		b, err := json.Marshal(res)
		if err != nil {
			return fail(protocol.CodeInternalError, "%v", err)
		}
		return b, nil
	case "sampling/createMessage":
		if c.o.sample == nil {
			return fail(protocol.CodeMethodNotFound, "this client does not answer sampling requests")
		}
		req, err := decodeSampling(params)
		if err != nil {
			return fail(protocol.CodeInvalidParams, "sampling/createMessage: %v", err)
		}
		res, err := c.o.sample(ctx, req)
		if err != nil {
			return nil, handlerError(err)
		}
		if res == nil || res.Content == nil {
			return fail(protocol.CodeInternalError, "the sampling handler returned no content")
		}
		content, err := json.Marshal(res.Content)
		if err != nil {
			return fail(protocol.CodeInternalError, "%v", err)
		}
		role := res.Role
		if role == "" {
			role = protocol.RoleAssistant
		}
		b, _ := json.Marshal(map[string]any{"role": role, "content": json.RawMessage(content), "model": res.Model, "stopReason": res.StopReason})
		return b, nil
	case "roots/list":
		if c.o.roots == nil {
			return fail(protocol.CodeMethodNotFound, "this client has no roots")
		}
		roots, err := c.o.roots(ctx)
		if err != nil {
			return nil, handlerError(err)
		}
		if roots == nil {
			roots = []protocol.Root{}
		}
		b, _ := json.Marshal(map[string]any{"roots": roots})
		return b, nil
	case "ping":
		return json.RawMessage(`{}`), nil
	}
	return fail(protocol.CodeMethodNotFound, "this client does not answer %s", method)
}

// decodeSampling decodes sampling/createMessage params, whose messages
// hold content of any type.
func decodeSampling(params json.RawMessage) (*protocol.SamplingRequest, error) {
	var w struct {
		Messages         []protocol.PromptMessage `json:"messages"`
		SystemPrompt     string                   `json:"systemPrompt"`
		MaxTokens        int                      `json:"maxTokens"`
		Temperature      *float64                 `json:"temperature"`
		StopSequences    []string                 `json:"stopSequences"`
		ModelPreferences json.RawMessage          `json:"modelPreferences"`
		IncludeContext   string                   `json:"includeContext"`
		Metadata         json.RawMessage          `json:"metadata"`
	}
	if err := json.Unmarshal(params, &w); err != nil {
		return nil, err
	}
	req := &protocol.SamplingRequest{SystemPrompt: w.SystemPrompt, MaxTokens: w.MaxTokens, Temperature: w.Temperature,
		StopSequences: w.StopSequences, ModelPreferences: w.ModelPreferences, IncludeContext: w.IncludeContext, Metadata: w.Metadata}
	for _, m := range w.Messages {
		req.Messages = append(req.Messages, protocol.SamplingMessage(m))
	}
	return req, nil
}

// answerAll answers the inputRequests of an input_required result.
func (c *Client) answerAll(ctx context.Context, requests map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(requests))
	var first error
	for key, raw := range requests {
		if first != nil {
			// Every question is still put to the handlers, so that one
			// that must be asked elsewhere (a proxy's caller) asks them all
			// at once.
			var q protocol.InputRequest
			if json.Unmarshal(raw, &q) == nil {
				_, _ = c.answer(context.WithValue(ctx, inputKey{}, key), q.Method, q.Params)
			}
			continue
		}
		var q protocol.InputRequest
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, fmt.Errorf("client: input request %q is malformed: %w", key, err)
		}
		res, e := c.answer(context.WithValue(ctx, inputKey{}, key), q.Method, q.Params)
		if e != nil {
			first = fmt.Errorf("client: cannot answer the server's %s (%s): %w", q.Method, key, e)
			continue
		}
		out[key] = res
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// serveRequest answers a request the server sent (handshake era), on its
// own goroutine so that the reading of the connection goes on. At most
// MaxServerRequests are answered at once; one beyond them is refused with
// CodeServerBusy before the next message is read.
func (c *Client) serveRequest(callCtx context.Context, id json.RawMessage, method string, params json.RawMessage) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	select {
	case c.serving <- struct{}{}:
	default:
		c.mu.Unlock()
		c.respond(id, method, nil, protocol.NewError(protocol.CodeServerBusy,
			"too many requests in flight: the client answers %d of the server's requests at once (MaxServerRequests); retry once some are answered", cap(c.serving)))
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer func() { <-c.serving }()
		ctx := c.ctx
		if callCtx != nil {
			// The questions of a call are answered in its context (a proxy
			// finds its caller there), for as long as the client lives.
			var cancel context.CancelFunc
			ctx, cancel = mergeCancel(callCtx, c.ctx)
			defer cancel()
		}
		res, e := c.answer(ctx, method, params)
		c.respond(id, method, res, e)
	}()
}

// respond sends the client's answer to the server's request id: its result
// res, or the error e.
func (c *Client) respond(id json.RawMessage, method string, res json.RawMessage, e *protocol.Error) {
	var msg []byte
	if e != nil {
		msg, _ = protocol.AppendError(nil, id, e)
	} else {
		msg = protocol.AppendResult(nil, id, res)
	}
	info := c.Info()
	if err := c.t.send(c.ctx, &message{body: msg, era: info.Era, version: info.ProtocolVersion}); err != nil {
		c.o.logger.Warn("client: answering the server failed", "method", method, "err", err)
	}
}

// Progress is a notifications/progress the server sent for a call.
type Progress struct {
	Progress float64
	Total    *float64
	Message  string
}

type progressKey struct{}

// WithProgress returns a context whose calls report their progress to fn.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressOf returns the progress handler WithProgress gave ctx, or nil.
func progressOf(ctx context.Context) func(Progress) {
	fn, _ := ctx.Value(progressKey{}).(func(Progress))
	return fn
}

// deliverProgress hands a progress notification to its call's handler.
func (c *Client) deliverProgress(params json.RawMessage) bool {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    *float64        `json:"total"`
		Message  string          `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	token, err := strconv.Unquote(string(p.Token))
	if err != nil {
		return false
	}
	c.mu.Lock()
	fn := c.progress[token]
	c.mu.Unlock()
	if fn == nil && strings.HasPrefix(token, "p") {
		fn = c.o.onProgress // a call without a handler of its own
	}
	if fn == nil {
		return false
	}
	fn(Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
	return true
}

// mergeCancel returns a context with the values of values that also ends
// when also does.
func mergeCancel(values, also context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(values)
	stop := context.AfterFunc(also, cancel)
	return ctx, func() { stop(); cancel() }
}

// inputKey carries the key of the input request being answered.
type inputKey struct{}

// InputKey returns the key the server gave the question being answered
// (2026-07-28 input requests), or "".
func InputKey(ctx context.Context) string {
	k, _ := ctx.Value(inputKey{}).(string)
	return k
}
