package sake

import (
	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// Clients of older handshake-era revisions get the shapes of their
// revision: fields a revision did not have yet are left out of lists, and
// results use only the content it knows.

// revision levels, from the newest shapes to the oldest.
const (
	revModern   = iota // 2026-07-28
	rev20251125        // icons, tasks (execution.taskSupport)
	rev20250618        // title, outputSchema, structuredContent, resource_link, elicitation
	rev20250326        // annotations on tools, audio, completions
	rev20241105
	numRevisions
)

// revisionOf returns the shape level of a request.
func revisionOf(req *Request) int {
	if req.Era == EraModern {
		return revModern
	}
	switch v := req.ProtocolVersion; {
	case v >= "2025-11-25":
		return rev20251125
	case v >= "2025-06-18":
		return rev20250618
	case v >= "2025-03-26":
		return rev20250326
	}
	return rev20241105
}

// revisionJSON holds a list entry's JSON for every revision level.
type revisionJSON [numRevisions][]byte

// shapeRevisions derives the older revisions' JSON from the newest: each
// level leaves out what its revision did not have yet. toolAnnotations says
// whether "annotations" came with 2025-03-26 (tools) or was always there
// (resources).
func shapeRevisions(full []byte, toolAnnotations bool) revisionJSON {
	var v revisionJSON
	v[revModern], v[rev20251125] = full, full
	v[rev20250618] = stripMembers(full, "icons")
	v[rev20250326] = stripMembers(v[rev20250618], "title", "outputSchema")
	v[rev20241105] = v[rev20250326]
	if toolAnnotations {
		v[rev20241105] = stripMembers(v[rev20250326], "annotations")
	}
	return v
}

// stripMembers returns the JSON object obj without the named members (obj
// itself when it has none of them).
func stripMembers(obj []byte, names ...string) []byte {
	has := false
	_ = jsonscan.Members(obj, func(key, _ []byte) error {
		for _, n := range names {
			if string(key) == n {
				has = true
			}
		}
		return nil
	})
	if !has {
		return obj
	}
	out := []byte{'{'}
	first := true
	_ = jsonscan.Members(obj, func(key, value []byte) error {
		for _, n := range names {
			if string(key) == n {
				return nil
			}
		}
		out = protocol.AppendKey(out, string(key), first)
		out = append(out, value...)
		first = false
		return nil
	})
	return append(out, '}')
}

// forRevision adapts a tool result to what an older client knows:
// structuredContent and resource links came with 2025-06-18 (a link
// becomes a line of text).
func forRevision(r *ToolResult, rev int) *ToolResult {
	if rev < rev20250326 {
		return r
	}
	links := false
	for _, c := range r.Content {
		if _, ok := c.(*ResourceLink); ok {
			links = true
		}
	}
	if r.StructuredContent == nil && !links {
		return r
	}
	out := *r
	out.StructuredContent = nil
	if links {
		out.Content = make([]Content, len(r.Content))
		for i, c := range r.Content {
			if l, ok := c.(*ResourceLink); ok {
				c = Textf("Resource %s: %s", l.Name, l.URI)
			}
			out.Content[i] = c
		}
	}
	return &out
}
