package jsonscan

import (
	"bytes"
	"strconv"
)

// Decoder turns JSON text into the generic form encoding/json gives an
// `any`: map[string]any, []any, string, float64, bool and nil. It is one
// pass over the text that validates as it goes: each string is scanned
// once and copied once. Its zero value is ready to use.
type Decoder struct {
	// Keys, if not nil, holds object keys the caller expects (such as the
	// property names of a schema), each mapped to itself: a key found in
	// it is shared instead of allocated again for every object.
	Keys map[string]string
	// Valid says the text is known to be valid JSON (it lies inside a
	// message that Members has validated): a string without escapes is
	// then found by its closing quote, not checked byte by byte again.
	// Decode still fails cleanly, never panics, on text that is not JSON
	// after all, but may then accept control characters inside strings.
	Valid bool
	// Into, if not nil, is an empty map that receives the members when
	// the value is an object: Decode returns it instead of a new map, so
	// that a caller done with the result can clear it and decode into it
	// again. Nested objects are always new maps.
	Into map[string]any
}

// maxSharedText is the longest text whose strings share one copy of it:
// a string the caller keeps then keeps at most this much alive.
const maxSharedText = 4 << 10

// Decode decodes the JSON value in b, which may be surrounded by
// whitespace. Objects become map[string]any (of duplicate keys, the last
// wins), arrays []any (never nil), numbers float64; strings are unescaped
// as [Unquote] does, invalid UTF-8 is kept as it is. It returns a
// *[SyntaxError], the same one [Valid] would find, for text that is not
// JSON, and a *strconv.NumError for valid JSON with a number beyond the
// range of float64. In a text of at most 4 KiB, strings without escapes
// (values and keys) are cut from one copy of the whole text rather than
// allocated one by one.
func (d Decoder) Decode(b []byte) (any, error) {
	p := decoder{scanner: scanner{b: b}, keys: d.Keys, valid: d.Valid, into: d.Into}
	v, i := p.value(skipWS(b, 0), 0)
	if i < 0 {
		if p.numErr != nil {
			// A syntax error later in the text is reported first, as a
			// validation before decoding would.
			s := scanner{b: b}
			if j := s.value(skipWS(b, 0), 0); j < 0 {
				return nil, s.err()
			} else if j = skipWS(b, j); j < len(b) {
				s.fail(j, ctxTopLevel)
				return nil, s.err()
			}
			return nil, p.numErr
		}
		return nil, p.err()
	}
	if j := skipWS(b, i); j < len(b) {
		p.fail(j, ctxTopLevel)
		return nil, p.err()
	}
	return v, nil
}

// decoder is one Decode call: a scanner that also builds values.
type decoder struct {
	scanner
	keys   map[string]string
	text   string         // a copy of b that short strings are cut from, made when first needed
	valid  bool           // the text is known to be valid
	into   map[string]any // Decoder.Into, for the top-level object
	numErr error          // a number out of range; the decoder stops at it
}

// str scans the string at b[i] like the scanner's str, setting esc; for
// valid text without escapes it searches for the closing quote instead.
func (d *decoder) str(i int) int {
	d.esc = false
	if d.valid {
		// Without a backslash the first quote ends the string; with one,
		// the scanner checks the escapes before they are decoded.
		if q := bytes.IndexByte(d.b[i+1:], '"'); q >= 0 && bytes.IndexByte(d.b[i+1:i+1+q], '\\') < 0 {
			return i + q + 2
		}
	}
	return d.scanner.str(i)
}

// value decodes the value at b[i] (depth containers enclose it) and
// returns it with the offset just past it, or -1 on failure.
func (d *decoder) value(i, depth int) (any, int) {
	b := d.b
	if i >= len(b) {
		return nil, d.fail(i, "")
	}
	switch c := b[i]; {
	case c == '"':
		j := d.str(i)
		if j < 0 {
			return nil, j
		}
		if !d.esc {
			return d.plain(i+1, j-1), j
		}
		var buf [128]byte
		return string(appendUnescaped(buf[:0], b[i+1:j-1])), j
	case c == '{':
		return d.object(i, depth)
	case c == '[':
		return d.array(i, depth)
	case c == '-' || c-'0' < 10:
		j := d.number(i)
		if j < 0 {
			return nil, j
		}
		f, err := strconv.ParseFloat(string(b[i:j]), 64)
		if err != nil {
			d.numErr = err
			return nil, -1
		}
		return f, j
	case c == 't':
		if j := d.literal(i, "true"); j < 0 {
			return nil, j
		}
		return true, i + 4
	case c == 'f':
		if j := d.literal(i, "false"); j < 0 {
			return nil, j
		}
		return false, i + 5
	case c == 'n':
		if j := d.literal(i, "null"); j < 0 {
			return nil, j
		}
		return nil, i + 4
	}
	return nil, d.fail(i, ctxValue)
}

// object decodes the object whose opening brace is b[i].
func (d *decoder) object(i, depth int) (any, int) {
	b := d.b
	if depth >= maxDepth {
		d.deep = true
		return nil, d.fail(i, "")
	}
	m := d.into
	if depth != 0 || m == nil {
		m = make(map[string]any)
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, i + 1
	}
	for {
		if i >= len(b) {
			return nil, d.fail(i, "")
		}
		if b[i] != '"' {
			return nil, d.fail(i, ctxKey)
		}
		ks := i
		if i = d.str(i); i < 0 {
			return nil, i
		}
		key := d.key(ks+1, b[ks+1:i-1])
		if i = skipWS(b, i); i >= len(b) {
			return nil, d.fail(i, "")
		}
		if b[i] != ':' {
			return nil, d.fail(i, ctxColon)
		}
		var x any
		if x, i = d.value(skipWS(b, i+1), depth+1); i < 0 {
			return nil, i
		}
		m[key] = x
		if i = skipWS(b, i); i >= len(b) {
			return nil, d.fail(i, "")
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return m, i + 1
		default:
			return nil, d.fail(i, ctxAfterMember)
		}
	}
}

// key returns the string of the object key whose content starts at
// b[start] (the scanner's esc tells whether it holds escapes), shared from
// d.keys when it is there.
func (d *decoder) key(start int, raw []byte) string {
	if d.esc {
		var buf [128]byte
		return string(appendUnescaped(buf[:0], raw))
	}
	if k, ok := d.keys[string(raw)]; ok {
		return k
	}
	return d.plain(start, start+len(raw))
}

// plain returns b[from:to], text without escapes, as a string: cut from
// the shared copy of a short text, or a copy of its own.
func (d *decoder) plain(from, to int) string {
	if len(d.b) > maxSharedText || to-from < 2 {
		return string(d.b[from:to]) // one byte strings are not allocated
	}
	if d.text == "" {
		d.text = string(d.b)
	}
	return d.text[from:to]
}

// array decodes the array whose opening bracket is b[i].
func (d *decoder) array(i, depth int) (any, int) {
	b := d.b
	if depth >= maxDepth {
		d.deep = true
		return nil, d.fail(i, "")
	}
	out := []any{}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, i + 1
	}
	for {
		var x any
		if x, i = d.value(i, depth+1); i < 0 {
			return nil, i
		}
		out = append(out, x)
		if i = skipWS(b, i); i >= len(b) {
			return nil, d.fail(i, "")
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return out, i + 1
		default:
			return nil, d.fail(i, ctxAfterElem)
		}
	}
}
