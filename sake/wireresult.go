package sake

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// cacheKind says which cache hints a modern result carries.
type cacheKind uint8

const (
	cacheNone cacheKind = iota
	cacheList
	cacheRead
	cacheDiscover
	cacheListPrivate // a list filtered for its caller
)

// resultWriter renders results for one request's era: the modern era adds
// resultType, cache hints and the server's info in _meta.
type resultWriter struct {
	s   *Server
	era Era
	rev int // revision level (see revision.go)
}

// wireResult is a result the dispatcher renders itself.
type wireResult interface {
	appendResult(dst []byte, w *resultWriter) ([]byte, error)
}

// tail closes a result object: resultType, cache hints and _meta in the
// modern era, then the closing brace. first says no member was written.
func (w *resultWriter) tail(dst []byte, first bool, meta Meta, cache cacheKind, resultType string) ([]byte, error) {
	return w.tailWith(dst, first, meta, nil, cache, resultType)
}

// appendEncodedTool appends a tool result left encoded (a proxy's, as the
// remote server sent it; see protocol.ToolResultFromWire) without
// decoding it: its members as they are, but for resultType, which the
// dispatcher writes, and the remote's serverInfo in _meta, which
// describes the remote, not the result. raw is valid JSON
// (ToolResultFromWire checked it) on one line.
func (w *resultWriter) appendEncodedTool(dst []byte, raw []byte) ([]byte, error) {
	dst = append(dst, '{')
	first, hasContent := true, false
	var meta []byte
	// raw was validated when it was received: walking it again needs only
	// the end of each value, not a second validation.
	err := jsonscan.MembersValid(raw, func(key, v []byte) error {
		switch string(key) {
		case "resultType":
			return nil
		case "_meta":
			if jsonscan.Kind(v) == jsonscan.Object {
				meta = v
			}
			return nil
		case "content":
			hasContent = true
		}
		dst = protocol.AppendKey(dst, string(key), first)
		dst = append(dst, v...)
		first = false
		return nil
	})
	if err != nil {
		return dst, err
	}
	if !hasContent {
		dst = protocol.AppendKey(dst, "content", first)
		dst = append(dst, "[]"...)
		first = false
	}
	return w.tailWith(dst, first, nil, meta, cacheNone, "")
}

// tailWith is tail with rawMeta, a JSON object whose members (but
// serverInfo) join _meta after meta's.
func (w *resultWriter) tailWith(dst []byte, first bool, meta Meta, rawMeta []byte, cache cacheKind, resultType string) ([]byte, error) {
	var extra []byte
	if w.era == EraModern {
		if resultType == "" {
			resultType = "complete"
		}
		dst = protocol.AppendKey(dst, "resultType", first)
		dst = protocol.AppendString(dst, resultType)
		first = false
		if cache != cacheNone {
			ttl := w.s.opts.listTTL
			switch cache {
			case cacheRead:
				ttl = w.s.opts.readTTL
			case cacheDiscover:
				ttl = w.s.opts.discoverTTL
			}
			dst = append(dst, `,"ttlMs":`...)
			dst = strconv.AppendInt(dst, ttl.Milliseconds(), 10)
			dst = append(dst, `,"cacheScope":`...)
			if cache == cacheListPrivate {
				dst = append(dst, `"private"`...)
			} else {
				dst = protocol.AppendString(dst, w.s.opts.cacheScope)
			}
		}
		if !w.s.opts.noServerInfoMeta {
			extra = w.s.serverInfoMeta
		}
	}
	if len(rawMeta) > 0 {
		return appendRawMeta(dst, first, meta, extra, rawMeta)
	}
	if first && (len(meta) > 0 || len(extra) > 0) {
		// protocol.AppendMeta writes a leading comma; give it a member to follow.
		b, err := protocol.AppendMeta(nil, meta, extra)
		if err != nil {
			return dst, err
		}
		dst = append(dst, b[1:]...)
		return append(dst, '}'), nil
	}
	dst, err := protocol.AppendMeta(dst, meta, extra)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

func (w *resultWriter) appendResult(dst []byte, res any) ([]byte, error) {
	switch r := res.(type) {
	case wireResult:
		return r.appendResult(dst, w)
	case *ToolResult:
		if raw := r.Encoded(); raw != nil {
			if w.rev < rev20250326 && bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
				return w.appendEncodedTool(dst, raw)
			}
			if err := r.Decode(); err != nil {
				return dst, err
			}
		}
		r = forRevision(r, w.rev)
		b, err := protocol.AppendToolResultMembers(dst, r)
		if err != nil {
			return dst, err
		}
		return w.tail(b, false, r.Meta, cacheNone, "")
	case *PromptResult:
		b := append(dst, '{')
		first := true
		if r.Description != "" {
			b = protocol.AppendKey(b, "description", true)
			b = protocol.AppendString(b, r.Description)
			first = false
		}
		b = protocol.AppendKey(b, "messages", first)
		b = append(b, '[')
		for i, m := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = protocol.AppendPromptMessage(b, m); err != nil {
				return dst, err
			}
		}
		b = append(b, ']')
		return w.tail(b, false, r.Meta, cacheNone, "")
	case json.RawMessage:
		return append(dst, r...), nil
	}
	// Anything else (from middleware): encoding/json, with resultType
	// spliced in for the modern era.
	b, err := protocol.MarshalNoEscape(res)
	if err != nil {
		return dst, err
	}
	if w.era == EraModern && len(b) >= 2 && b[0] == '{' {
		dst = append(dst, `{"resultType":"complete"`...)
		if len(b) > 2 {
			dst = append(dst, ',')
		}
		return append(dst, b[1:]...), nil
	}
	return append(dst, b...), nil
}

// appendRawMeta closes a result with its _meta: extra, meta's members,
// then rawMeta's but its serverInfo.
func appendRawMeta(dst []byte, first bool, meta Meta, extra, rawMeta []byte) ([]byte, error) {
	start := len(dst)
	b, err := protocol.AppendMeta(dst, meta, extra) // nothing, or ,"_meta":{…}
	if err != nil {
		return dst, err
	}
	inner := len(b) > start
	if inner {
		b = b[:len(b)-1] // reopened: rawMeta's members follow
		if first {
			b = append(b[:start], b[start+1:]...) // no member before it
		}
	} else {
		b = protocol.AppendKey(b, "_meta", first)
		b = append(b, '{')
	}
	err = jsonscan.Members(rawMeta, func(key, v []byte) error {
		if string(key) == protocol.MetaServerInfo {
			return nil
		}
		b = protocol.AppendKey(b, string(key), !inner)
		b = append(b, v...)
		inner = true
		return nil
	})
	if err != nil {
		return dst, err
	}
	if !inner {
		// Only the remote's server info was there: no _meta at all, not
		// an empty one.
		return append(b[:start], '}'), nil
	}
	return append(b, '}', '}'), nil
}

// emptyResult is {} (plus resultType in the modern era).
type emptyResult struct{}

func (emptyResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	return w.tail(append(dst, '{'), true, nil, cacheNone, "")
}

// listResult is one page of a list method, from precomputed item JSON.
type listResult struct {
	key     string
	items   [][]byte
	next    string
	private bool // filtered for the caller
}

func (r *listResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	// A page is its items' bytes: room for all of them at once, rather than
	// a buffer doubled (and copied) a dozen times for a long page.
	n := len(r.key) + 2*len(r.next) + 128
	for _, it := range r.items {
		n += len(it) + 1
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, '{')
	dst = protocol.AppendKey(dst, r.key, true)
	dst = append(dst, '[')
	for i, it := range r.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it...)
	}
	dst = append(dst, ']')
	if r.next != "" {
		dst = append(dst, `,"nextCursor":`...)
		dst = protocol.AppendString(dst, r.next)
	}
	if r.private {
		return w.tail(dst, false, nil, cacheListPrivate, "")
	}
	return w.tail(dst, false, nil, cacheList, "")
}

// ReadResult is the result of resources/read.
type ReadResult struct {
	Contents []ResourceContents
}

func (r *ReadResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, `{"contents":[`...)
	for i := range r.Contents {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = protocol.AppendResourceContents(dst, &r.Contents[i]); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	return w.tail(dst, false, nil, cacheRead, "")
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Completion *Completion
}

func (r *CompleteResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	b, err := json.Marshal(r.Completion)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"completion":`...)
	dst = append(dst, b...)
	return w.tail(dst, false, nil, cacheNone, "")
}

// discoverResult is the result of server/discover.
type discoverResult struct {
	caps         []byte
	instructions string
}

func (r *discoverResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, `{"supportedVersions":[`...)
	for i, v := range supportedVersions {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = protocol.AppendString(dst, v)
	}
	dst = append(dst, `],"capabilities":`...)
	dst = append(dst, r.caps...)
	dst = protocol.AppendOptString(dst, "instructions", r.instructions)
	return w.tail(dst, false, nil, cacheDiscover, "")
}

// initializeResult is the result of a legacy initialize.
type initializeResult struct {
	version      string
	caps         []byte
	info         protocol.Implementation
	instructions string
}

func (r *initializeResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, `{"protocolVersion":`...)
	dst = protocol.AppendString(dst, r.version)
	dst = append(dst, `,"capabilities":`...)
	dst = append(dst, r.caps...)
	dst = append(dst, `,"serverInfo":`...)
	var err error
	if dst, err = protocol.AppendAny(dst, r.info); err != nil {
		return dst, err
	}
	dst = protocol.AppendOptString(dst, "instructions", r.instructions)
	return w.tail(dst, false, nil, cacheNone, "")
}
