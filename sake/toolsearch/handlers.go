package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/sakemcp/sake-go/sake"
)

// pageSize is the most entries one tools/list page of the search holds.
const pageSize = 1000

// maxInnerPages bounds the pages read from the server's own tools/list
// to make one page of the search's.
const maxInnerPages = 10000

// cursorPrefix starts the search's tools/list cursors.
const cursorPrefix = "toolsearch:"

// list answers tools/list: the server's list as the caller sees it
// (every page of it), without the covered tools but those always
// listed, followed by the search's two tools.
func (s *Search) list(ctx context.Context, req *sake.Request, next sake.Handler) (any, error) {
	offset := 0
	if c := req.Params.Cursor; c != nil {
		n, err := strconv.Atoi(strings.TrimPrefix(*c, cursorPrefix))
		if !strings.HasPrefix(*c, cursorPrefix) || err != nil || n <= 0 {
			return nil, sake.InvalidParams("Invalid cursor")
		}
		offset = n
	}
	cat := req.Server().ToolCatalog()
	var entries []json.RawMessage
	var cursor *string
	for range maxInnerPages {
		r := *req
		p := *req.Params
		p.Cursor = cursor
		r.Params = &p
		res, err := next(ctx, &r)
		if err != nil {
			return nil, err
		}
		raw, err := sake.ResultJSON(&r, res)
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
		for _, e := range page.Tools {
			var named struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(e, &named)
			if named.Name == s.opts.SearchTool || named.Name == s.opts.CallTool {
				continue // shadowed by the search's own
			}
			if cat.Lookup(named.Name) >= 0 && s.covers(named.Name) && !s.pinned[named.Name] {
				continue
			}
			entries = append(entries, e)
		}
		if page.NextCursor == "" {
			break
		}
		c := page.NextCursor
		cursor = &c
	}
	entries = append(entries, s.entries[0], s.entries[1])
	if offset >= len(entries) {
		return nil, sake.InvalidParams("Invalid cursor")
	}
	end := min(offset+pageSize, len(entries))
	nextCursor := ""
	if end < len(entries) {
		nextCursor = cursorPrefix + strconv.Itoa(end)
	}
	return sake.ToolsPage(req, entries[offset:end], nextCursor), nil
}

// searchArgs are search_tools' arguments.
type searchArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit"`
}

// search answers search_tools: the list entries of the best tools for
// the query that the caller may list, best first.
func (s *Search) search(req *sake.Request) (any, error) {
	var a searchArgs
	if err := strictDecode(req.Params.Arguments, &a); err != nil {
		return sake.ErrorResult("Invalid arguments for tool %s: %v", s.opts.SearchTool, err), nil
	}
	switch {
	case strings.TrimSpace(a.Query) == "":
		return sake.ErrorResult("Invalid arguments for tool %s: query is required: say in a few words what the tool should do", s.opts.SearchTool), nil
	case len(a.Query) > MaxQueryBytes:
		return sake.ErrorResult("Invalid arguments for tool %s: query is %d bytes, more than %d: say it in fewer words", s.opts.SearchTool, len(a.Query), MaxQueryBytes), nil
	case a.Limit != nil && (*a.Limit < 1 || *a.Limit > MaxResults):
		return sake.ErrorResult("Invalid arguments for tool %s: limit is %d; give 1 to %d", s.opts.SearchTool, *a.Limit, MaxResults), nil
	}
	k := s.opts.Results
	if a.Limit != nil {
		k = *a.Limit
	}
	b := s.index(req.Server())
	hits := b.ix.Search(a.Query, k, func(doc int) bool {
		i := b.pos[doc]
		return b.cat.Listed(req, i) && (!s.opts.OnlyPermitted || b.cat.Permits(req, i))
	})
	out := make([]byte, 0, 256*len(hits)+16)
	out = append(out, `{"tools":[`...)
	for i, h := range hits {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b.cat.Entry(req, b.pos[h.Doc])...)
	}
	out = append(out, "]}"...)
	return &sake.ToolResult{Content: []sake.Content{sake.Text(string(out))}, StructuredContent: json.RawMessage(out)}, nil
}

// callArgs are call_tool's arguments.
type callArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// call answers call_tool by handing the server a tools/call of the named
// tool: every check the tool has (its requirement, PerCallerLists, its
// arguments' schema, Disable) applies as to a direct call, with the same
// errors.
func (s *Search) call(ctx context.Context, req *sake.Request, next sake.Handler) (any, error) {
	var a callArgs
	if err := strictDecode(req.Params.Arguments, &a); err != nil {
		return sake.ErrorResult("Invalid arguments for tool %s: %v", s.opts.CallTool, err), nil
	}
	args := bytes.TrimSpace(a.Arguments)
	switch {
	case a.Name == "":
		return sake.ErrorResult("Invalid arguments for tool %s: name is required: give the name of a tool %s found", s.opts.CallTool, s.opts.SearchTool), nil
	case len(args) > 0 && args[0] != '{' && string(args) != "null":
		return sake.ErrorResult("Invalid arguments for tool %s: arguments must be an object of the tool's arguments", s.opts.CallTool), nil
	case a.Name == s.opts.SearchTool || a.Name == s.opts.CallTool:
		return nil, sake.InvalidParams("Unknown tool: %s", a.Name)
	}
	if string(args) == "null" {
		args = nil
	}
	r := *req
	p := *req.Params
	p.Name, p.Arguments = a.Name, slices.Clip(args)
	r.Params = &p
	return next(ctx, &r)
}

// strictDecode decodes a JSON object of arguments into v, refusing
// members v does not have; no arguments decode as an empty object.
func strictDecode(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return errArgsNotObject
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
