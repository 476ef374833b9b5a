package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
)

// The tools ResourcesAsTools and PromptsAsTools add.
const (
	ListResourcesTool         = "list_resources"
	ListResourceTemplatesTool = "list_resource_templates"
	ReadResourceTool          = "read_resource"
	ListPromptsTool           = "list_prompts"
	GetPromptTool             = "get_prompt"
)

// asTool is one tool that answers by asking the server another method.
type asTool struct {
	name  string
	entry json.RawMessage
	// method builds the request the tool stands for from its arguments.
	method func(p *sake.Params, args json.RawMessage) (string, error)
	// result turns the method's result into the tool's.
	result func(req *sake.Request, res any) (any, error)
}

// ResourcesAsTools returns middleware that adds three tools for clients
// that speak only tools: list_resources and list_resource_templates (one
// page each, with an optional cursor argument for the next) and
// read_resource (a uri argument). Each is answered by the server's own
// resources/list, resources/templates/list or resources/read, through the
// middleware after this one, for the same caller: requirements, the
// PerCallerLists predicate, Disable and every error are as for those
// methods. Text contents become text blocks, binary ones embedded
// resources, and the structured content holds what the method returned.
// A tool of the server with one of these names is shadowed.
func ResourcesAsTools() sake.Middleware {
	cursorSchema := map[string]any{"cursor": map[string]any{"type": "string", "description": "The nextCursor of the page before, to read the next page."}}
	return asTools(
		asTool{
			name:  ListResourcesTool,
			entry: toolEntry(ListResourcesTool, "List resources", "Lists the resources (documents, files, records) this server can read, by URI, one page at a time.", cursorSchema, nil, true),
			method: func(p *sake.Params, args json.RawMessage) (string, error) {
				return "resources/list", cursorArg(p, args)
			},
			result: listResult("resources"),
		},
		asTool{
			name:  ListResourceTemplatesTool,
			entry: toolEntry(ListResourceTemplatesTool, "List resource templates", "Lists the URI templates of resources this server can read (fill the {variables} in and read the URI), one page at a time.", cursorSchema, nil, true),
			method: func(p *sake.Params, args json.RawMessage) (string, error) {
				return "resources/templates/list", cursorArg(p, args)
			},
			result: listResult("resourceTemplates"),
		},
		asTool{
			name: ReadResourceTool,
			entry: toolEntry(ReadResourceTool, "Read a resource", "Reads the resource at a URI that list_resources listed (or that fills a template of list_resource_templates) and returns its contents.",
				map[string]any{"uri": map[string]any{"type": "string", "description": "The resource's URI."}}, []string{"uri"}, true),
			method: func(p *sake.Params, args json.RawMessage) (string, error) {
				var a struct {
					URI string `json:"uri"`
				}
				if err := strictDecode(args, &a); err != nil {
					return "", err
				}
				if a.URI == "" {
					return "", fmt.Errorf("uri is required: give the URI of a resource list_resources listed")
				}
				p.URI = a.URI
				return "resources/read", nil
			},
			result: readResult,
		},
	)
}

// PromptsAsTools returns middleware that adds two tools for clients that
// speak only tools: list_prompts (one page, with an optional cursor
// argument for the next) and get_prompt (a name, and the prompt's
// arguments as an object of strings). Each is answered by the server's
// own prompts/list or prompts/get, through the middleware after this
// one, for the same caller, with the same requirements and errors. The
// prompt's messages come back as JSON text and as structured content. A
// tool of the server with one of these names is shadowed.
func PromptsAsTools() sake.Middleware {
	return asTools(
		asTool{
			name: ListPromptsTool,
			entry: toolEntry(ListPromptsTool, "List prompts", "Lists the prompts (message templates) this server offers, with their arguments, one page at a time.",
				map[string]any{"cursor": map[string]any{"type": "string", "description": "The nextCursor of the page before, to read the next page."}}, nil, true),
			method: func(p *sake.Params, args json.RawMessage) (string, error) {
				return "prompts/list", cursorArg(p, args)
			},
			result: listResult("prompts"),
		},
		asTool{
			name: GetPromptTool,
			entry: toolEntry(GetPromptTool, "Get a prompt", "Fills in a prompt that list_prompts listed with its arguments and returns its messages.",
				map[string]any{
					"name":      map[string]any{"type": "string", "description": "The prompt's name."},
					"arguments": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "description": "The prompt's arguments, each a string."},
				}, []string{"name"}, true),
			method: func(p *sake.Params, args json.RawMessage) (string, error) {
				var a struct {
					Name      string            `json:"name"`
					Arguments map[string]string `json:"arguments"`
				}
				if err := strictDecode(args, &a); err != nil {
					return "", err
				}
				if a.Name == "" {
					return "", fmt.Errorf("name is required: give the name of a prompt list_prompts listed")
				}
				p.Name = a.Name
				if a.Arguments != nil {
					p.Arguments, _ = json.Marshal(a.Arguments)
				}
				return "prompts/get", nil
			},
			result: promptResult,
		},
	)
}

// asTools is the middleware of a set of tools standing for other methods.
func asTools(tools ...asTool) sake.Middleware {
	byName := map[string]*asTool{}
	for i := range tools {
		byName[tools[i].name] = &tools[i]
	}
	return func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			switch req.Method {
			case "tools/list":
				return appendToList(ctx, req, next, tools)
			case "tools/call":
				t := byName[req.Params.Name]
				if t == nil {
					break
				}
				r := *req
				p := sake.Params{Meta: req.Params.Meta, RequestState: req.Params.RequestState, InputResponses: req.Params.InputResponses}
				method, err := t.method(&p, req.Params.Arguments)
				if err != nil {
					return sake.ErrorResult("Invalid arguments for tool %s: %v", t.name, err), nil
				}
				r.Method, r.Params = method, &p
				res, err := next(ctx, &r)
				if err != nil {
					return nil, err
				}
				return t.result(&r, res)
			}
			return next(ctx, req)
		}
	}
}

// appendToList answers tools/list with the server's page, and the tools
// after the last page's entries.
func appendToList(ctx context.Context, req *sake.Request, next sake.Handler, tools []asTool) (any, error) {
	res, err := next(ctx, req)
	if err != nil {
		return nil, err
	}
	raw, err := sake.ResultJSON(req, res)
	if err != nil {
		return nil, err
	}
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, err
	}
	entries := make([]json.RawMessage, 0, len(page.Tools)+len(tools))
	for _, e := range page.Tools {
		var named struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(e, &named)
		if !shadowed(named.Name, tools) {
			entries = append(entries, e)
		}
	}
	if page.NextCursor == "" {
		for _, t := range tools {
			entries = append(entries, t.entry)
		}
	}
	return sake.ToolsPage(req, entries, page.NextCursor), nil
}

func shadowed(name string, tools []asTool) bool {
	for _, t := range tools {
		if t.name == name {
			return true
		}
	}
	return false
}

// cursorArg reads a list tool's optional cursor argument into p.
func cursorArg(p *sake.Params, args json.RawMessage) error {
	var a struct {
		Cursor *string `json:"cursor"`
	}
	if err := strictDecode(args, &a); err != nil {
		return err
	}
	p.Cursor = a.Cursor
	return nil
}

// listResult makes a list tool's result of a list method's page: the
// page's items under key and its nextCursor, as JSON text and structured
// content.
func listResult(key string) func(req *sake.Request, res any) (any, error) {
	return func(req *sake.Request, res any) (any, error) {
		raw, err := sake.ResultJSON(req, res)
		if err != nil {
			return nil, err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, err
		}
		out := map[string]json.RawMessage{key: page[key]}
		if out[key] == nil {
			return res, nil // not a page: pass it on as it is
		}
		if c, ok := page["nextCursor"]; ok {
			out["nextCursor"] = c
		}
		return jsonResult(out)
	}
}

// readResult makes read_resource's result of what resources/read
// returned: text contents as text blocks, binary ones as embedded
// resources, all of it as structured content.
func readResult(req *sake.Request, res any) (any, error) {
	rr, ok := res.(*sake.ReadResult)
	if !ok {
		return res, nil // a question for the client, say: pass it on
	}
	out := &sake.ToolResult{}
	for _, c := range rr.Contents {
		if c.Blob == nil {
			out.Content = append(out.Content, sake.Text(c.Text))
		} else {
			out.Content = append(out.Content, &sake.EmbeddedResource{Resource: c})
		}
	}
	raw, err := sake.ResultJSON(req, rr)
	if err != nil {
		return nil, err
	}
	var page map[string]json.RawMessage
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, err
	}
	structured, err := json.Marshal(map[string]json.RawMessage{"contents": page["contents"]})
	if err != nil {
		return nil, err
	}
	out.StructuredContent = json.RawMessage(structured)
	return out, nil
}

// promptResult makes get_prompt's result of what prompts/get returned.
func promptResult(req *sake.Request, res any) (any, error) {
	if _, ok := res.(*sake.PromptResult); !ok {
		return res, nil
	}
	raw, err := sake.ResultJSON(req, res)
	if err != nil {
		return nil, err
	}
	var page map[string]json.RawMessage
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{"messages": page["messages"]}
	if d, ok := page["description"]; ok {
		out["description"] = d
	}
	return jsonResult(out)
}

func jsonResult(v any) (*sake.ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &sake.ToolResult{Content: []sake.Content{sake.Text(string(b))}, StructuredContent: json.RawMessage(b)}, nil
}

// toolEntry is the tools/list entry of a tool the middleware answers.
func toolEntry(name, title, description string, props map[string]any, required []string, readOnly bool) json.RawMessage {
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, err := json.Marshal(map[string]any{
		"name": name, "title": title, "description": description, "inputSchema": schema,
		"annotations": map[string]any{"readOnlyHint": readOnly},
	})
	if err != nil {
		panic(err) // the values above always marshal
	}
	return b
}
