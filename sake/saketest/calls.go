package saketest

import (
	"context"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// CallTool calls a tool with args (a map or a struct, encoded as JSON;
// nil for none). A tool that answered with isError returns its result and
// a *sake.ToolError; a JSON-RPC error returns a *sake.Error. A tool the
// server runs as a task is followed to its end (TaskTimeout).
func (c *Client) CallTool(name string, args any) (*sake.ToolResult, error) {
	c.t.Helper()
	res, task, err := c.CallToolAsync(name, args)
	if err != nil || task == nil {
		return res, err
	}
	return c.TaskResult(task.ID)
}

// call runs one call of the client underneath and reports the panics it
// caused at the test's line.
func call[T any](c *Client, fn func(cl *client.Client, ctx context.Context) (T, error)) (T, error) {
	c.t.Helper()
	defer c.reportPanics()
	ctx := c.callContext()
	if c.label == "" {
		v, err := fn(c.cl, ctx)
		return v, c.fix(err)
	}
	var v T
	var err error
	c.labelled(ctx, func(ctx context.Context) { v, err = fn(c.cl, ctx) })
	return v, c.fix(err)
}

// ListTools lists every tool, following pages.
func (c *Client) ListTools() ([]protocol.ToolInfo, error) {
	c.t.Helper()
	return call(c, (*client.Client).ListTools)
}

// ListToolsPage returns one page of tools/list ("" for the first).
func (c *Client) ListToolsPage(cursor string) (protocol.Page[protocol.ToolInfo], error) {
	c.t.Helper()
	p, err := call(c, func(cl *client.Client, ctx context.Context) (protocol.Page[protocol.ToolInfo], error) {
		return cl.ListToolsPage(ctx, cursor)
	})
	return protocol.Page[protocol.ToolInfo](p), err
}

// ListResources lists every static resource, following pages.
func (c *Client) ListResources() ([]protocol.ResourceInfo, error) {
	c.t.Helper()
	return call(c, (*client.Client).ListResources)
}

// ListResourceTemplates lists every resource template, following pages.
func (c *Client) ListResourceTemplates() ([]protocol.ResourceTemplateInfo, error) {
	c.t.Helper()
	return call(c, (*client.Client).ListResourceTemplates)
}

// ListPrompts lists every prompt, following pages.
func (c *Client) ListPrompts() ([]protocol.PromptInfo, error) {
	c.t.Helper()
	return call(c, (*client.Client).ListPrompts)
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(uri string) ([]sake.ResourceContents, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) ([]sake.ResourceContents, error) {
		return cl.ReadResource(ctx, uri)
	})
}

// GetPrompt gets a prompt with its arguments (nil for none).
func (c *Client) GetPrompt(name string, args map[string]string) (*sake.PromptResult, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) (*sake.PromptResult, error) {
		return cl.GetPrompt(ctx, name, args)
	})
}

// Complete asks for completions of argument, whose value so far is value.
// context holds arguments already filled in (nil for none).
func (c *Client) Complete(ref protocol.CompleteRef, argument, value string, context map[string]string) (*sake.Completion, error) {
	c.t.Helper()
	return c.complete(protocol.CompleteRef(ref), argument, value, context)
}

func (c *Client) complete(ref protocol.CompleteRef, argument, value string, known map[string]string) (*sake.Completion, error) {
	c.t.Helper()
	return call(c, func(cl *client.Client, ctx context.Context) (*sake.Completion, error) {
		return cl.Complete(ctx, ref, argument, value, known)
	})
}

// Ping checks that the server answers: ping in the legacy era,
// server/discover in the modern one (which has no ping).
func (c *Client) Ping() error {
	c.t.Helper()
	_, err := call(c, func(cl *client.Client, ctx context.Context) (struct{}, error) {
		return struct{}{}, cl.Ping(ctx)
	})
	return err
}

// SetLogLevel sets the session's log level with logging/setLevel (legacy
// era only: a modern client sets its level per request with the LogLevel
// option).
func (c *Client) SetLogLevel(level sake.LogLevel) error {
	c.t.Helper()
	if !c.opts.legacy {
		return fmt.Errorf("saketest: SetLogLevel needs a legacy client; a modern client sets saketest.LogLevel when it connects")
	}
	_, err := call(c, func(cl *client.Client, ctx context.Context) (struct{}, error) {
		return struct{}{}, cl.SetLogLevel(ctx, level)
	})
	return err
}
