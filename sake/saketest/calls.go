package saketest

import (
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// CallTool calls a tool with args (a map or a struct, encoded as JSON;
// nil for none). A tool that answered with isError returns its result and
// a *sake.ToolError; a JSON-RPC error returns a *sake.Error.
func (c *Client) CallTool(name string, args any) (*sake.ToolResult, error) {
	c.t.Helper()
	raw, err := c.Request("tools/call", c.callParams(name, args))
	if err != nil {
		return nil, err
	}
	if isTask(raw) {
		t, err := decodeTask(raw)
		if err != nil {
			return nil, err
		}
		return c.followTask(t)
	}
	var res sake.ToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("saketest: tools/call result: %w", err)
	}
	if res.IsError {
		return &res, &sake.ToolError{Result: &res}
	}
	return &res, nil
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
	Task      any    `json:"task,omitempty"`
}

// Page is one page of a list.
type Page[T any] struct {
	Items      []T
	NextCursor string
}

func listPage[T any](c *Client, method, key, cursor string) (Page[T], error) {
	c.t.Helper()
	var params map[string]any
	if cursor != "" {
		params = map[string]any{"cursor": cursor}
	}
	raw, err := c.Request(method, params)
	if err != nil {
		return Page[T]{}, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Page[T]{}, fmt.Errorf("saketest: %s result: %w", method, err)
	}
	var p Page[T]
	if err := json.Unmarshal(m[key], &p.Items); err != nil {
		return Page[T]{}, fmt.Errorf("saketest: %s result: %w", method, err)
	}
	if nc, ok := m["nextCursor"]; ok {
		_ = json.Unmarshal(nc, &p.NextCursor)
	}
	return p, nil
}

func listAll[T any](c *Client, method, key string) ([]T, error) {
	c.t.Helper()
	var all []T
	cursor := ""
	for {
		p, err := listPage[T](c, method, key, cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, p.Items...)
		if p.NextCursor == "" {
			return all, nil
		}
		cursor = p.NextCursor
	}
}

// ListTools lists every tool, following pages.
func (c *Client) ListTools() ([]sake.ToolInfo, error) {
	c.t.Helper()
	return listAll[sake.ToolInfo](c, "tools/list", "tools")
}

// ListToolsPage returns one page of tools/list ("" for the first).
func (c *Client) ListToolsPage(cursor string) (Page[sake.ToolInfo], error) {
	c.t.Helper()
	return listPage[sake.ToolInfo](c, "tools/list", "tools", cursor)
}

// ListResources lists every static resource, following pages.
func (c *Client) ListResources() ([]sake.ResourceInfo, error) {
	c.t.Helper()
	return listAll[sake.ResourceInfo](c, "resources/list", "resources")
}

// ListResourceTemplates lists every resource template, following pages.
func (c *Client) ListResourceTemplates() ([]sake.ResourceTemplateInfo, error) {
	c.t.Helper()
	return listAll[sake.ResourceTemplateInfo](c, "resources/templates/list", "resourceTemplates")
}

// ListPrompts lists every prompt, following pages.
func (c *Client) ListPrompts() ([]sake.PromptInfo, error) {
	c.t.Helper()
	return listAll[sake.PromptInfo](c, "prompts/list", "prompts")
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(uri string) ([]sake.ResourceContents, error) {
	c.t.Helper()
	raw, err := c.Request("resources/read", map[string]any{"uri": uri})
	if err != nil {
		return nil, err
	}
	var r struct {
		Contents []sake.ResourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("saketest: resources/read result: %w", err)
	}
	return r.Contents, nil
}

// GetPrompt gets a prompt with its arguments (nil for none).
func (c *Client) GetPrompt(name string, args map[string]string) (*sake.PromptResult, error) {
	c.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	raw, err := c.Request("prompts/get", params)
	if err != nil {
		return nil, err
	}
	var r sake.PromptResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("saketest: prompts/get result: %w", err)
	}
	return &r, nil
}

// Ref names what Complete completes: PromptRef or ResourceRef.
type Ref struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef refers to a prompt's arguments.
func PromptRef(name string) Ref { return Ref{Type: "ref/prompt", Name: name} }

// ResourceRef refers to a resource template's variables.
func ResourceRef(uriTemplate string) Ref { return Ref{Type: "ref/resource", URI: uriTemplate} }

// Complete asks for completions of argument, whose value so far is value.
// context holds arguments already filled in (nil for none).
func (c *Client) Complete(ref Ref, argument, value string, context map[string]string) (*sake.Completion, error) {
	c.t.Helper()
	params := map[string]any{"ref": ref, "argument": map[string]string{"name": argument, "value": value}}
	if context != nil {
		params["context"] = map[string]any{"arguments": context}
	}
	raw, err := c.Request("completion/complete", params)
	if err != nil {
		return nil, err
	}
	var r struct {
		Completion sake.Completion `json:"completion"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("saketest: completion/complete result: %w", err)
	}
	return &r.Completion, nil
}

// Ping checks that the server answers: ping in the legacy era,
// server/discover in the modern one (which has no ping).
func (c *Client) Ping() error {
	c.t.Helper()
	method := "server/discover"
	if c.opts.legacy {
		method = "ping"
	}
	_, err := c.Request(method, nil)
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
	_, err := c.Request("logging/setLevel", map[string]any{"level": level})
	return err
}
