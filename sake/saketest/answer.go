package saketest

import (
	"encoding/json"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Accept answers a form with content (a map or a struct).
func Accept(content any) protocol.ElicitResult {
	return protocol.ElicitResult{Action: sake.Accept, Content: content}
}

// Decline says the user refused.
func Decline() protocol.ElicitResult { return protocol.ElicitResult{Action: sake.Decline} }

// Cancel says the user dismissed the question.
func Cancel() protocol.ElicitResult { return protocol.ElicitResult{Action: sake.Cancel} }

// OnInput answers the server's elicitations with fn, and declares the
// elicitation capability (form and URL modes).
func OnInput(fn func(protocol.ElicitRequest) protocol.ElicitResult) Option {
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
