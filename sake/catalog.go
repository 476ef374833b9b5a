package sake

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// ToolCatalog is a snapshot of the tools a server publishes (after
// transforms and Disable, mounted and proxied ones included), for
// middleware that lists or searches tools itself, such as sake/toolsearch.
// Taking one costs an atomic load; it never changes once taken.
type ToolCatalog struct {
	s   *Server
	reg *registry
}

// ToolCatalog returns the tools the server publishes now.
func (s *Server) ToolCatalog() ToolCatalog { return ToolCatalog{s: s, reg: s.comps.current()} }

// Len returns the number of tools in the catalog.
func (c ToolCatalog) Len() int {
	if c.reg == nil {
		return 0
	}
	return len(c.reg.tools)
}

// Name returns the name of the i-th tool; tools are sorted by name.
func (c ToolCatalog) Name(i int) string { return c.reg.tools[i].name }

// Lookup returns the position of the tool named name, or -1.
func (c ToolCatalog) Lookup(name string) int {
	if c.reg == nil {
		return -1
	}
	i, ok := slices.BinarySearchFunc(c.reg.tools, name, func(t *tool, n string) int { return strings.Compare(t.name, n) })
	if !ok {
		return -1
	}
	return i
}

// Entry returns the i-th tool's tools/list entry as req's protocol
// revision shows it; with a nil req, as the newest revision does. Do not
// modify it.
func (c ToolCatalog) Entry(req *Request, i int) json.RawMessage {
	t := c.reg.tools[i]
	if req == nil {
		return t.byRevision[revModern]
	}
	rev := revisionOf(req)
	if rev == rev20251125 && c.s.opts.tasks != nil {
		return t.legacyJSON
	}
	return t.byRevision[rev]
}

// Listed reports whether tools/list shows the i-th tool to req's caller:
// false for a tool meant for MCP Apps views only when the client does not
// speak Apps, and, under PerCallerLists, for a tool whose requirement the
// caller does not meet or that the predicate refuses.
func (c ToolCatalog) Listed(req *Request, i int) bool {
	t := c.reg.tools[i]
	if t.appOnly && !req.ClientCapabilities.HasExtension(protocol.AppsExtension) {
		return false
	}
	if c.s.opts.lists == nil {
		return true
	}
	return c.s.authorize(t.require, req) == nil && c.s.allows(req, t.info())
}

// Permits reports whether req's caller meets the i-th tool's requirement
// (its own, or the server's default), which a call checks first.
func (c ToolCatalog) Permits(req *Request, i int) bool {
	return c.s.authorize(c.reg.tools[i].require, req) == nil
}

// Same reports whether c and other hold the same tools, each published
// the same way, so that what was computed from one holds for the other.
func (c ToolCatalog) Same(other ToolCatalog) bool {
	if c.reg == other.reg {
		return true
	}
	if c.reg == nil || other.reg == nil {
		return false
	}
	return slices.Equal(c.reg.tools, other.reg.tools)
}

// ToolsPage returns a tools/list result of the given entries (and the
// cursor of the next page, if any) rendered as the server renders its own
// lists: with the cache hints of the 2026-07-28 era, private when lists
// are filtered per caller (PerCallerLists).
func ToolsPage(req *Request, entries []json.RawMessage, nextCursor string) any {
	r := &listResult{key: "tools", items: make([][]byte, len(entries)), next: nextCursor}
	for i, e := range entries {
		r.items[i] = e
	}
	if req != nil && req.srv != nil && req.srv.opts.lists != nil {
		r.private = true
	}
	return r
}

// ResultJSON renders a result a handler returned for req as the server
// would send it (the JSON-RPC result member), for middleware that turns
// one method's answer into another's, such as sake/toolsearch's
// ResourcesAsTools.
func ResultJSON(req *Request, res any) (json.RawMessage, error) {
	if req == nil || req.srv == nil {
		return nil, errors.New("sake: ResultJSON needs a request the server made")
	}
	w := &resultWriter{s: req.srv, era: req.Era, rev: revisionOf(req)}
	return w.appendResult(nil, res)
}
