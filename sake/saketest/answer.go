package saketest

import (
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// ElicitParams is a question the server asks the user
// (elicitation/create), as the input handler receives it.
type ElicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
}

// Answer is the user's answer to an elicitation: build it with Accept,
// Decline or Cancel.
type Answer struct {
	Action  sake.ElicitAction `json:"action"`
	Content any               `json:"content,omitempty"`
}

// Accept answers a form with content (a map or a struct).
func Accept(content any) Answer { return Answer{Action: sake.Accept, Content: content} }

// Decline says the user refused.
func Decline() Answer { return Answer{Action: sake.Decline} }

// Cancel says the user dismissed the question.
func Cancel() Answer { return Answer{Action: sake.Cancel} }

// OnInput answers the server's elicitations with fn, and declares the
// elicitation capability (form and URL modes).
func OnInput(fn func(ElicitParams) Answer) Option {
	return func(o *options) { o.onInput = fn }
}

// Sampling answers the server's sampling requests with fn, and declares
// the sampling capability.
func Sampling(fn func(sake.SamplingRequest) (*sake.SamplingResult, error)) Option {
	return func(o *options) { o.sampling = fn }
}

// SamplingText answers every sampling request with the assistant saying
// text, and declares the sampling capability.
func SamplingText(text string) Option {
	return Sampling(func(sake.SamplingRequest) (*sake.SamplingResult, error) {
		return &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text(text), Model: "saketest", StopReason: "endTurn"}, nil
	})
}

// Roots answers roots/list with roots, and declares the roots capability.
func Roots(roots ...sake.Root) Option {
	return func(o *options) { o.roots = append([]sake.Root{}, roots...) }
}

// Ask is a question the server asked this client.
type Ask struct {
	Method string
	Params json.RawMessage
}

// Asked returns every question the server asked this client, in order.
func (c *Client) Asked() []Ask {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Ask(nil), c.asked...)
}

// answer computes the client's answer to one question: its result JSON, or
// a JSON-RPC error.
func (c *Client) answer(method string, params json.RawMessage) (json.RawMessage, *sake.Error) {
	c.mu.Lock()
	c.asked = append(c.asked, Ask{Method: method, Params: params})
	c.mu.Unlock()
	switch method {
	case "elicitation/create":
		if c.opts.onInput == nil {
			return nil, &sake.Error{Code: sake.CodeMethodNotFound, Message: "saketest: no input handler (use saketest.OnInput)"}
		}
		var p ElicitParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &sake.Error{Code: sake.CodeInvalidParams, Message: err.Error()}
		}
		if p.Mode == "" {
			p.Mode = "form"
		}
		b, err := json.Marshal(c.opts.onInput(p))
		if err != nil {
			return nil, &sake.Error{Code: sake.CodeInternalError, Message: err.Error()}
		}
		return b, nil
	case "sampling/createMessage":
		if c.opts.sampling == nil {
			return nil, &sake.Error{Code: sake.CodeMethodNotFound, Message: "saketest: no sampling handler (use saketest.Sampling)"}
		}
		req, err := decodeSampling(params)
		if err != nil {
			return nil, &sake.Error{Code: sake.CodeInvalidParams, Message: "saketest: the sampling request does not decode: " + err.Error()}
		}
		res, err := c.opts.sampling(req)
		if err != nil {
			return nil, &sake.Error{Code: sake.CodeInternalError, Message: err.Error()}
		}
		content, err := json.Marshal(res.Content)
		if err != nil {
			return nil, &sake.Error{Code: sake.CodeInternalError, Message: err.Error()}
		}
		b, _ := json.Marshal(map[string]any{"role": res.Role, "content": json.RawMessage(content), "model": res.Model, "stopReason": res.StopReason})
		return b, nil
	case "roots/list":
		if c.opts.roots == nil {
			return nil, &sake.Error{Code: sake.CodeMethodNotFound, Message: "saketest: no roots (use saketest.Roots)"}
		}
		b, _ := json.Marshal(map[string]any{"roots": c.opts.roots})
		return b, nil
	case "ping":
		return json.RawMessage(`{}`), nil
	}
	return nil, &sake.Error{Code: sake.CodeMethodNotFound, Message: "saketest: the client does not answer " + method}
}

// answerAll answers the inputRequests of an input_required result.
func (c *Client) answerAll(requests map[string]struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(requests))
	for key, q := range requests {
		res, e := c.answer(q.Method, q.Params)
		if e != nil {
			return nil, fmt.Errorf("saketest: cannot answer %s (%s): %w", key, q.Method, e)
		}
		out[key] = res
	}
	return out, nil
}

// answerServerRequest answers a request a legacy server sent during a
// call, by handing the response back to the dispatcher.
func (c *Client) answerServerRequest(id json.RawMessage, method string, params json.RawMessage) {
	res, e := c.answer(method, params)
	var msg []byte
	if e != nil {
		eb, _ := json.Marshal(e)
		msg = []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":` + string(eb) + `}`)
	} else {
		msg = []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(res) + `}`)
	}
	if _, err := c.exchange(c.context(), msg); err != nil {
		c.t.Errorf("saketest: answering %s: %v", method, err)
	}
}

// decodeSampling decodes sampling/createMessage params: the messages'
// content is an interface, decoded by PromptMessage, while the other
// members decode as they are.
func decodeSampling(params json.RawMessage) (sake.SamplingRequest, error) {
	var w struct {
		sake.SamplingRequest
		Messages []sake.PromptMessage `json:"messages"` // shadows SamplingRequest.Messages
	}
	if err := json.Unmarshal(params, &w); err != nil {
		return sake.SamplingRequest{}, err
	}
	req := w.SamplingRequest
	req.Messages = make([]sake.SamplingMessage, 0, len(w.Messages))
	for _, m := range w.Messages {
		req.Messages = append(req.Messages, sake.SamplingMessage(m))
	}
	return req, nil
}
