package middleware

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

// entryOverhead is what an entry counts for beyond its key and result:
// the entry itself and its places in the maps.
const entryOverhead = 160

// cacheEntry is one kept result, in the cache's recency list.
type cacheEntry struct {
	key        string
	uri        string // the resource read, "" for a tool
	result     any    // *sake.ToolResult or *sake.ReadResult; never modified
	size       int
	expires    time.Time
	prev, next *cacheEntry
}

// cacheList orders the entries from the most recently used (front) to
// the least (back).
type cacheList struct{ front, back *cacheEntry }

func (l *cacheList) pushFront(e *cacheEntry) {
	e.prev, e.next = nil, l.front
	if l.front != nil {
		l.front.prev = e
	}
	l.front = e
	if l.back == nil {
		l.back = e
	}
}

func (l *cacheList) remove(e *cacheEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.front = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.back = e.prev
	}
	e.prev, e.next = nil, nil
}

func (l *cacheList) moveToFront(e *cacheEntry) {
	if l.front == e {
		return
	}
	l.remove(e)
	l.pushFront(e)
}

// cachedSize is what a result counts for in the cache, false for one the
// cache does not keep: errors, isError results and interim answers.
func cachedSize(res any) (int, bool) {
	switch r := res.(type) {
	case *sake.ToolResult:
		if r == nil || r.IsError {
			return 0, false
		}
		n, _ := resultSize(r)
		return n + metaSize(r.Meta), true
	case *sake.ReadResult:
		if r == nil {
			return 0, false
		}
		n := 0
		for i := range r.Contents {
			c := &r.Contents[i]
			n += len(c.URI) + len(c.MIMEType) + len(c.Text) + base64.StdEncoding.EncodedLen(len(c.Blob)) + metaSize(c.Meta)
		}
		return n, true
	}
	return 0, false
}

func metaSize(m sake.Meta) int {
	if len(m) == 0 {
		return 0
	}
	b, err := json.Marshal(m)
	if err != nil {
		return 0
	}
	return len(b)
}

// canonicalJSON renders arguments with object keys sorted and no
// insignificant space, so that two spellings of the same arguments are one
// key; false for arguments that are not JSON. Strings and numbers are kept
// as they were spelled.
func canonicalJSON(raw json.RawMessage) ([]byte, bool) {
	return appendCanonicalArgs(nil, raw)
}

// appendCanonicalArgs appends canonicalJSON(raw) to dst.
func appendCanonicalArgs(dst []byte, raw json.RawMessage) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return dst, true
	}
	if !jsonscan.Valid(raw) {
		return dst, false
	}
	return appendCanonical(dst, raw), true
}

// member is an object member, for sorting.
type member struct{ key, value []byte }

// appendCanonical appends the valid JSON value v in canonical form.
func appendCanonical(dst, v []byte) []byte {
	switch jsonscan.Kind(v) {
	case jsonscan.Object:
		var stack [8]member
		ms := stack[:0]
		_ = jsonscan.Members(v, func(key, value []byte) error {
			ms = append(ms, member{key, value})
			return nil
		})
		slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, string(m.key))
			dst = append(dst, ':')
			dst = appendCanonical(dst, m.value)
		}
		return append(dst, '}')
	case jsonscan.Array:
		dst = append(dst, '[')
		first := true
		_ = jsonscan.Elements(v, func(e []byte) error {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendCanonical(dst, e)
			return nil
		})
		return append(dst, ']')
	}
	return append(dst, v...)
}
