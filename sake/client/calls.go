package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sakemcp/sake-go/sake/internal/checkedargs"
	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// maxPages bounds the pages ListTools and its kind follow: a server whose
// cursors never end cannot hold the client forever.
const maxPages = 1000

func listPage[T any](ctx context.Context, c *Client, method, key, cursor string) (protocol.Page[T], error) {
	var params any
	if cursor != "" {
		params = map[string]string{"cursor": cursor}
	}
	raw, err := c.call(ctx, method, params, nil)
	if err != nil {
		return protocol.Page[T]{}, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return protocol.Page[T]{}, fmt.Errorf("client: %s result: %w", method, err)
	}
	var page protocol.Page[T]
	if items := m[key]; len(items) > 0 {
		if err := json.Unmarshal(items, &page.Items); err != nil {
			return protocol.Page[T]{}, fmt.Errorf("client: %s result: %w", method, err)
		}
	}
	if nc := m["nextCursor"]; len(nc) > 0 && string(nc) != "null" {
		if err := json.Unmarshal(nc, &page.NextCursor); err != nil {
			return protocol.Page[T]{}, fmt.Errorf("client: %s nextCursor: %w", method, err)
		}
	}
	return page, nil
}

func listAll[T any](ctx context.Context, c *Client, method, key string) ([]T, error) {
	var all []T
	cursor := ""
	seen := map[string]bool{}
	for range maxPages {
		page, err := listPage[T](ctx, c, method, key, cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextCursor == "" {
			return all, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("client: %s returned the cursor %q twice", method, page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("client: %s has more than %d pages", method, maxPages)
}

// ListTools returns every tool, following the pages. In the 2026-07-28
// era a tool whose x-mcp-header annotations break the protocol's rules is
// left out (the protocol asks clients to drop it), and logged.
func (c *Client) ListTools(ctx context.Context) ([]protocol.ToolInfo, error) {
	tools, err := listAll[protocol.ToolInfo](ctx, c, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	return c.learnTools(tools, true), nil
}

// ListToolsPage returns one page of tools.
func (c *Client) ListToolsPage(ctx context.Context, cursor string) (protocol.Page[protocol.ToolInfo], error) {
	p, err := listPage[protocol.ToolInfo](ctx, c, "tools/list", "tools", cursor)
	if err == nil {
		p.Items = c.learnTools(p.Items, cursor == "")
	}
	return p, err
}

// ListResources returns every resource, following the pages.
func (c *Client) ListResources(ctx context.Context) ([]protocol.ResourceInfo, error) {
	return listAll[protocol.ResourceInfo](ctx, c, "resources/list", "resources")
}

// ListResourcesPage returns one page of resources.
func (c *Client) ListResourcesPage(ctx context.Context, cursor string) (protocol.Page[protocol.ResourceInfo], error) {
	return listPage[protocol.ResourceInfo](ctx, c, "resources/list", "resources", cursor)
}

// ListResourceTemplates returns every resource template, following the
// pages.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]protocol.ResourceTemplateInfo, error) {
	return listAll[protocol.ResourceTemplateInfo](ctx, c, "resources/templates/list", "resourceTemplates")
}

// ListResourceTemplatesPage returns one page of resource templates.
func (c *Client) ListResourceTemplatesPage(ctx context.Context, cursor string) (protocol.Page[protocol.ResourceTemplateInfo], error) {
	return listPage[protocol.ResourceTemplateInfo](ctx, c, "resources/templates/list", "resourceTemplates", cursor)
}

// ListPrompts returns every prompt, following the pages.
func (c *Client) ListPrompts(ctx context.Context) ([]protocol.PromptInfo, error) {
	return listAll[protocol.PromptInfo](ctx, c, "prompts/list", "prompts")
}

// ListPromptsPage returns one page of prompts.
func (c *Client) ListPromptsPage(ctx context.Context, cursor string) (protocol.Page[protocol.PromptInfo], error) {
	return listPage[protocol.PromptInfo](ctx, c, "prompts/list", "prompts", cursor)
}

// CallTool calls a tool with args (a map or a struct, encoded as JSON; nil
// for none) and returns its result. A tool that answered with isError
// returns its result and a *protocol.ToolError; a JSON-RPC error is a
// *protocol.Error. A tool the server runs as a task is awaited.
func (c *Client) CallTool(ctx context.Context, name string, args any) (*protocol.ToolResult, error) {
	res, task, err := c.StartTool(ctx, name, args)
	if err != nil || task == nil {
		return res, err
	}
	return c.followTask(ctx, task)
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
	Task      any    `json:"task,omitempty"`
}

// appendFast appends the JSON of p without reflection when its arguments
// are JSON already (a proxy's, as its caller sent them) on one line and
// it asks for no task; ok is false otherwise, and encoding/json encodes
// p. Arguments a proxy hands on as checkedargs.Args were validated by the
// dispatcher that decoded them and are not scanned again; a caller's own
// json.RawMessage is.
func (p *callParams) appendFast(dst []byte) (_ []byte, ok bool) {
	var args json.RawMessage
	checked := false
	switch a := p.Arguments.(type) {
	case json.RawMessage:
		args = a
	case *checkedargs.Args:
		args, checked = a.JSON, true
	default:
		return dst, false
	}
	if p.Task != nil || len(args) == 0 || bytes.ContainsAny(args, "\r\n") || (!checked && !jsonscan.Valid(args)) {
		return dst, false
	}
	dst = append(dst, `{"name":`...)
	dst = protocol.AppendString(dst, p.Name)
	dst = append(dst, `,"arguments":`...)
	dst = append(dst, bytes.TrimSpace(args)...)
	return append(dst, '}'), true
}

// toolResult decodes a tools/call result.
func toolResult(raw []byte) (*protocol.ToolResult, error) {
	var res protocol.ToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("client: tools/call result: %w", err)
	}
	if res.IsError {
		return &res, &protocol.ToolError{Result: &res}
	}
	return &res, nil
}

// ReadResource reads a resource and returns its contents.
func (c *Client) ReadResource(ctx context.Context, uri string) ([]protocol.ResourceContents, error) {
	raw, err := c.call(ctx, "resources/read", map[string]string{"uri": uri}, &callOpts{name: uri, hasName: true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Contents []protocol.ResourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("client: resources/read result: %w", err)
	}
	return r.Contents, nil
}

// GetPrompt gets a prompt with its arguments.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*protocol.PromptResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	raw, err := c.call(ctx, "prompts/get", params, &callOpts{name: name, hasName: true})
	if err != nil {
		return nil, err
	}
	var r protocol.PromptResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("client: prompts/get result: %w", err)
	}
	return &r, nil
}

// Complete asks for completions of argument, whose value so far is value;
// context holds the other arguments already chosen (nil for none).
func (c *Client) Complete(ctx context.Context, ref protocol.CompleteRef, argument, value string, context map[string]string) (*protocol.Completion, error) {
	params := map[string]any{"ref": ref, "argument": map[string]string{"name": argument, "value": value}}
	if len(context) > 0 {
		params["context"] = map[string]any{"arguments": context}
	}
	raw, err := c.call(ctx, "completion/complete", params, nil)
	if err != nil {
		return nil, err
	}
	var r struct {
		Completion protocol.Completion `json:"completion"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("client: completion/complete result: %w", err)
	}
	return &r.Completion, nil
}

// Ping checks that the server answers. The 2026-07-28 era has no ping: it
// asks server/discover instead.
func (c *Client) Ping(ctx context.Context) error {
	method := "ping"
	if c.Era() == protocol.EraModern {
		method = "server/discover"
	}
	_, err := c.call(ctx, method, nil, nil)
	return err
}

// SetLogLevel sets the level of the log messages the server sends
// (logging/setLevel). In the 2026-07-28 era the level travels on every
// request instead: use the LogLevel option.
func (c *Client) SetLogLevel(ctx context.Context, level protocol.LogLevel) error {
	if c.Era() == protocol.EraModern {
		return fmt.Errorf("client: the 2026-07-28 era has no logging/setLevel; connect with the LogLevel option")
	}
	_, err := c.call(ctx, "logging/setLevel", map[string]any{"level": level}, nil)
	return err
}

// headerParam is a tool argument mirrored in an Mcp-Param-* header.
type headerParam struct {
	prop, header string
}

// learnTools records which tool arguments travel as headers
// (x-mcp-header), and returns the tools without those whose headers are
// invalid (2026-07-28).
func (c *Client) learnTools(tools []protocol.ToolInfo, first bool) []protocol.ToolInfo {
	c.toolHints.learn(tools, first)
	modern := c.Era() == protocol.EraModern
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := tools[:0:0]
	if first {
		c.toolHeaders = map[string][]headerParam{}
	}
	for _, t := range tools {
		var s struct {
			Properties map[string]struct {
				Header *string `json:"x-mcp-header"`
				Type   any     `json:"type"`
			} `json:"properties"`
		}
		if json.Unmarshal(t.InputSchema, &s) != nil {
			kept = append(kept, t)
			continue
		}
		var hs []headerParam
		seen := map[string]bool{}
		valid := true
		for prop, p := range s.Properties {
			if p.Header == nil {
				continue
			}
			typ, _ := p.Type.(string)
			lower := strings.ToLower(*p.Header)
			if !isToken(*p.Header) || seen[lower] || (typ != "string" && typ != "integer" && typ != "boolean") {
				valid = false // the spec says to drop a tool whose headers are invalid
				break
			}
			seen[lower] = true
			hs = append(hs, headerParam{prop: prop, header: *p.Header})
		}
		if !valid {
			c.toolHeaders[t.Name] = []headerParam{{header: ""}}
			if modern {
				c.o.logger.Warn("client: leaving out a tool whose x-mcp-header annotations are invalid", "tool", t.Name)
				continue
			}
		} else if len(hs) > 0 {
			c.toolHeaders[t.Name] = hs
		} else {
			delete(c.toolHeaders, t.Name)
		}
		kept = append(kept, t)
	}
	return kept
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", ch) >= 0 {
			continue
		}
		return false
	}
	return true
}

// paramHeaders computes the Mcp-Param-* headers of a call to tool name.
func (c *Client) paramHeaders(name string, args any) ([][2]string, error) {
	c.mu.Lock()
	hs := c.toolHeaders[name]
	c.mu.Unlock()
	if len(hs) == 0 {
		return nil, nil
	}
	if hs[0].header == "" {
		return nil, fmt.Errorf("client: tool %s declares invalid x-mcp-header parameters; the protocol asks clients not to call it", name)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("client: arguments of %s: %w", name, err)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil, nil
	}
	var out [][2]string
	for _, h := range hs {
		v, ok := m[h.prop]
		if !ok || string(v) == "null" {
			continue
		}
		var s string
		switch {
		case len(v) > 0 && v[0] == '"':
			_ = json.Unmarshal(v, &s)
		default:
			s = string(v)
		}
		out = append(out, [2]string{"Mcp-Param-" + h.header, headerValue(s)})
	}
	return out, nil
}

// headerValue encodes v for a header: as is when plain ASCII, else in the
// base64 sentinel form.
func headerValue(v string) string {
	plain := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// itoa formats an id.
func itoa(id int64) string { return strconv.FormatInt(id, 10) }
