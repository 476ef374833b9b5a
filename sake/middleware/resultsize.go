package middleware

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/sakemcp/sake-go/sake"
)

// DefaultMaxResultBytes is the cap of MaxResultBytes when given n <= 0.
const DefaultMaxResultBytes = 1 << 20

// ResultCap caps the size of tool results (tools/call; other requests pass
// through).
type ResultCap struct {
	// MaxBytes is the most a result may carry (default
	// DefaultMaxResultBytes, 1 MiB), counted as the bytes of its text, the
	// base64 of its images, audio and blobs, the URIs and names of its
	// links and embedded resources, and its structured content as JSON.
	// The JSON-RPC envelope, annotations and _meta are not counted.
	MaxBytes int
	// Truncate keeps the start of an oversized result instead of refusing
	// it: its content blocks up to the cap, the last text block cut to
	// fit (on a UTF-8 boundary), then a text block that says the result
	// was cut. The note counts against the cap, so the answer is never
	// over it: the note is a sentence with the sizes when that leaves the
	// result at least as many bytes as the note takes, "[Result
	// truncated.]" under a smaller cap, and none under a cap smaller than
	// that. A result whose structured content alone is over the cap is
	// refused all the same (JSON cannot be cut and stay valid).
	Truncate bool
	// Tools, when set, are the only tools capped.
	Tools []string
}

// Middleware returns the cap as sake middleware. A result over the cap
// becomes an isError result for the model that says how large it was and
// to ask for less (or, with Truncate, is cut as described there). The
// final result of a call that runs as a task is capped the same way
// before it is stored (sake.WithTaskResult).
func (rc ResultCap) Middleware() sake.Middleware {
	max := rc.MaxBytes
	if max <= 0 {
		max = DefaultMaxResultBytes
	}
	var only map[string]bool
	if len(rc.Tools) > 0 {
		only = set(rc.Tools)
	}
	truncate := rc.Truncate
	capped := func(_ context.Context, req *sake.Request, r *sake.ToolResult) *sake.ToolResult {
		if r == nil || (only != nil && !only[req.Params.Name]) {
			return r
		}
		size, structured := resultSize(r)
		if size <= max {
			return r
		}
		if truncate && structured <= max {
			return truncated(r, size, max)
		}
		return sake.ErrorResult("The result of tool %s was %d bytes, over this server's limit of %d bytes. Ask for less: a narrower query, fewer items, or one page at a time.",
			req.Params.Name, size, max)
	}
	return func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.MayBecomeTask() && (only == nil || only[req.Params.Name]) {
				ctx = sake.WithTaskResult(ctx, capped)
			}
			res, err := next(ctx, req)
			if err != nil || req.Method != "tools/call" {
				return res, err
			}
			r, ok := res.(*sake.ToolResult)
			if !ok || r == nil {
				return res, err
			}
			return capped(ctx, req, r), nil
		}
	}
}

// resultSize is the size a result counts for, and that of its structured
// content.
func resultSize(r *sake.ToolResult) (total, structured int) {
	for _, c := range r.Content {
		total += contentSize(c)
	}
	switch v := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		structured = len(v)
	default:
		if b, err := json.Marshal(v); err == nil {
			structured = len(b)
		}
	}
	return total + structured, structured
}

func contentSize(c sake.Content) int {
	switch c := c.(type) {
	case *sake.TextContent:
		return len(c.Text)
	case *sake.ImageContent:
		return base64.StdEncoding.EncodedLen(len(c.Data)) + len(c.MIMEType)
	case *sake.AudioContent:
		return base64.StdEncoding.EncodedLen(len(c.Data)) + len(c.MIMEType)
	case *sake.ResourceLink:
		return len(c.URI) + len(c.Name) + len(c.Title) + len(c.Description) + len(c.MIMEType)
	case *sake.EmbeddedResource:
		rc := &c.Resource
		return len(rc.URI) + len(rc.MIMEType) + len(rc.Text) + base64.StdEncoding.EncodedLen(len(rc.Blob))
	}
	if b, err := json.Marshal(c); err == nil {
		return len(b)
	}
	return 0
}

// shortTruncationNote is the note of a result cut under a cap too small
// for the full one.
const shortTruncationNote = "[Result truncated.]"

// truncated keeps the longest start of r that fits within max bytes with
// the note that says it was cut: the note counts against the cap. The
// full note is used when it leaves at least as many bytes to the result
// as it takes, the short one otherwise; under a cap smaller than the
// short note, the result is cut to the cap with no note.
func truncated(r *sake.ToolResult, size, max int) *sake.ToolResult {
	note := "[Result truncated: it was " + strconv.Itoa(size) + " bytes, over this server's limit of " + strconv.Itoa(max) +
		" bytes. Ask for less, or for the next part, to see the rest.]"
	_, structured := resultSize(r)
	room := max - structured
	switch {
	case room-len(note) >= len(note):
	case room >= len(shortTruncationNote):
		note = shortTruncationNote
	default:
		note = ""
	}
	budget := room - len(note)
	out := &sake.ToolResult{StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta}
	for _, c := range r.Content {
		n := contentSize(c)
		if n <= budget {
			out.Content = append(out.Content, c)
			budget -= n
			continue
		}
		if t, ok := c.(*sake.TextContent); ok && budget > 0 {
			cut := *t
			if cut.Text = cutRunes(t.Text, budget); cut.Text != "" {
				out.Content = append(out.Content, &cut)
			}
		}
		break
	}
	if note != "" {
		out.Content = append(out.Content, sake.Text(note))
	}
	return out
}

// cutRunes truncates s to at most n bytes, on a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
