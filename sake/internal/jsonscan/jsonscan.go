package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
)

// maxDepth is the maximum nesting depth of objects and arrays, the same
// limit that encoding/json enforces.
const maxDepth = 10000

// frameDepth is the number of containers one call of scanner.value tracks in
// its bit set before it recurses. It must not exceed 64.
const frameDepth = 64

// maxSpans is the number of top-level members whose positions Members
// remembers while validating; members beyond it are located again after
// validation.
const maxSpans = 16

// ErrNotObject is returned by [Members] when its input is valid JSON but its
// top-level value is not an object.
var ErrNotObject = errors.New("jsonscan: not a JSON object")

// SyntaxError reports where the input stops being JSON.
type SyntaxError struct {
	// Offset is the index of the first byte that cannot continue valid JSON,
	// or the length of the input if it ended too early.
	Offset int
	// Msg describes the problem, in the style of encoding/json.
	Msg string
}

// Error implements the error interface.
func (e *SyntaxError) Error() string {
	return "jsonscan: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// ValueKind is the JSON type of a raw value, as reported by [Kind].
type ValueKind uint8

// The kinds reported by [Kind].
const (
	Invalid ValueKind = iota // empty input or an unexpected first byte
	String                   // "..."
	Number                   // -1.5e3
	Object                   // {...}
	Array                    // [...]
	True                     // true
	False                    // false
	Null                     // null
)

var kindNames = [...]string{"invalid", "string", "number", "object", "array", "true", "false", "null"}

// String returns the lower-case name of the kind, such as "object".
func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "ValueKind(" + strconv.Itoa(int(k)) + ")"
}

// Kind reports the JSON type of the raw value v by its first byte. It does
// not validate v and does not skip leading whitespace; values passed to the
// callback of [Members] are already trimmed. It returns [Invalid] for empty
// input or a first byte that cannot start a JSON value.
func Kind(v []byte) ValueKind {
	if len(v) == 0 {
		return Invalid
	}
	switch c := v[0]; c {
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	default:
		if c == '-' || c-'0' < 10 {
			return Number
		}
		return Invalid
	}
}

// Valid reports whether b is exactly one valid JSON value, optionally
// surrounded by whitespace. It accepts the same inputs as encoding/json's
// Valid and never allocates.
func Valid(b []byte) bool {
	s := scanner{b: b}
	i := s.value(skipWS(b, 0), 0)
	return i >= 0 && skipWS(b, i) == len(b)
}

// Members calls fn for each member of the JSON object in b, in order, with
// the member's key and raw value.
//
// The key is the text between the quotes; it is a sub-slice of b unless it
// contains backslash escapes, in which case it is a newly allocated,
// unescaped copy. The value is the sub-slice of b holding the member's value
// without surrounding whitespace; use [Kind] to tell its type and [Unquote]
// to decode strings. Duplicate keys are passed as they come. Because key and
// value usually alias b, fn must copy them if it keeps them after b is
// modified or reused.
//
// Members first validates the whole of b, including nested values, and
// calls fn only if b is valid: it returns a *[SyntaxError] for invalid input
// and [ErrNotObject] if b is valid JSON but not an object, without calling
// fn in either case. If fn returns an error, Members stops and returns that
// error unchanged.
//
// Members does not allocate, apart from unescaping keys that contain
// escapes.
func Members(b []byte, fn func(key, value []byte) error) error {
	s := scanner{b: b}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		if i = s.value(i, 0); i < 0 {
			return s.err()
		}
		if i = skipWS(b, i); i < len(b) {
			s.fail(i, ctxTopLevel)
			return s.err()
		}
		return ErrNotObject
	}

	// Validate the object, remembering where its first maxSpans members are
	// so that fn can be called without scanning them a second time.
	var spans [maxSpans]span
	n := 0
	rest := -1 // offset of the first member that did not fit in spans
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			ks := i
			if i = s.key(i); i < 0 {
				return s.err()
			}
			vs := i
			if i = s.value(i, 1); i < 0 {
				return s.err()
			}
			if n < len(spans) {
				spans[n] = span{ks, vs, i}
				n++
			} else if rest < 0 {
				rest = ks
			}
			if i = skipWS(b, i); i >= len(b) {
				s.fail(i, "")
				return s.err()
			}
			if b[i] == ',' {
				i = skipWS(b, i+1)
				continue
			}
			if b[i] != '}' {
				s.fail(i, ctxAfterMember)
				return s.err()
			}
			i++
			break
		}
	}
	if i = skipWS(b, i); i < len(b) {
		s.fail(i, ctxTopLevel)
		return s.err()
	}

	for _, sp := range spans[:n] {
		if err := emit(b, sp, fn); err != nil {
			return err
		}
	}
	if rest < 0 {
		return nil
	}
	// b is known to be valid, so the scanner cannot fail from here on.
	for i = rest; ; {
		ks := i
		vs := s.key(i)
		i = s.value(vs, 1)
		if err := emit(b, span{ks, vs, i}, fn); err != nil {
			return err
		}
		if i = skipWS(b, i); b[i] != ',' {
			return nil
		}
		i = skipWS(b, i+1)
	}
}

// span locates one object member in valid input: the opening quote of its
// key, and the start and end of its value.
type span struct {
	key, value, end int
}

// emit calls fn for the member at sp.
func emit(b []byte, sp span, fn func(key, value []byte) error) error {
	// Only whitespace and a colon lie between the key's closing quote and the
	// value, so the last quote before the value closes the key.
	ke := bytes.LastIndexByte(b[sp.key+1:sp.value], '"') + sp.key + 1
	key := b[sp.key+1 : ke]
	if bytes.IndexByte(key, '\\') >= 0 {
		key = appendUnescaped(make([]byte, 0, len(key)), key)
	}
	return fn(key, b[sp.value:sp.end])
}

// Contexts for syntax error messages, completing "invalid character 'x' ...".
const (
	ctxValue       = "looking for beginning of value"
	ctxKey         = "looking for beginning of object key string"
	ctxColon       = "after object key"
	ctxAfterMember = "after object key:value pair"
	ctxAfterElem   = "after array element"
	ctxTopLevel    = "after top-level value"
	ctxString      = "in string literal"
	ctxEscape      = "in string escape code"
	ctxHex         = "in \\u hexadecimal character escape"
	ctxNumber      = "in numeric literal"
	ctxFraction    = "after decimal point in numeric literal"
	ctxExponent    = "in exponent of numeric literal"
	ctxLiteral     = "in literal"
)

// scanner validates JSON text. Its methods take the offset at which to
// start and return the offset just past what they consumed, or -1 after
// recording the error position with fail.
type scanner struct {
	b      []byte
	errOff int
	errCtx string
	deep   bool // the error is exceeding maxDepth
	esc    bool // str saw a backslash escape (set, never cleared, by str)
}

// fail records a syntax error at offset off (len(s.b) or more for an
// unexpected end of input) and returns -1.
func (s *scanner) fail(off int, ctx string) int {
	s.errOff, s.errCtx = off, ctx
	return -1
}

// err returns the recorded syntax error.
func (s *scanner) err() *SyntaxError {
	switch {
	case s.deep:
		return &SyntaxError{Offset: s.errOff, Msg: "too deeply nested"}
	case s.errOff >= len(s.b):
		return &SyntaxError{Offset: len(s.b), Msg: "unexpected end of JSON input"}
	default:
		return &SyntaxError{Offset: s.errOff, Msg: "invalid character " + quoteChar(s.b[s.errOff]) + " " + s.errCtx}
	}
}

// quoteChar formats c for an error message.
func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x80:
		return strconv.QuoteRune(rune(c))
	default:
		return "byte 0x" + strconv.FormatUint(uint64(c), 16)
	}
}

// skipWS returns the offset of the first non-whitespace byte at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// value scans one JSON value starting exactly at b[i]. depth is the number
// of containers enclosing it.
//
// Nested containers are tracked iteratively in a 64-bit set (bit k set
// means the k-th open container of this call is an object); only when more
// than frameDepth are open does value recurse, so the stack stays small and
// nothing escapes to the heap.
func (s *scanner) value(i, depth int) int {
	b := s.b
	var objects uint64
	n := 0 // containers open in this call
	for {
		// A value must start at b[i].
		if i >= len(b) {
			return s.fail(i, "")
		}
		switch c := b[i]; {
		case c == '"':
			if i = s.str(i); i < 0 {
				return i
			}
		case c == '{' || c == '[':
			if depth+n >= maxDepth {
				s.deep = true
				return s.fail(i, "")
			}
			if n == frameDepth {
				if i = s.value(i, depth+n); i < 0 {
					return i
				}
				break
			}
			i = skipWS(b, i+1)
			if c == '{' {
				if i < len(b) && b[i] == '}' {
					i++
					break
				}
				objects |= 1 << n
				n++
				if i = s.key(i); i < 0 {
					return i
				}
			} else {
				if i < len(b) && b[i] == ']' {
					i++
					break
				}
				objects &^= 1 << n
				n++
			}
			continue
		case c == '-' || c-'0' < 10:
			if i = s.number(i); i < 0 {
				return i
			}
		case c == 't':
			if i = s.literal(i, "true"); i < 0 {
				return i
			}
		case c == 'f':
			if i = s.literal(i, "false"); i < 0 {
				return i
			}
		case c == 'n':
			if i = s.literal(i, "null"); i < 0 {
				return i
			}
		default:
			return s.fail(i, ctxValue)
		}

		// A value ended at i: continue or close the enclosing containers.
		for {
			if n == 0 {
				return i
			}
			if i = skipWS(b, i); i >= len(b) {
				return s.fail(i, "")
			}
			obj := objects&(1<<(n-1)) != 0
			c := b[i]
			if c == ',' {
				i = skipWS(b, i+1)
				if obj {
					if i = s.key(i); i < 0 {
						return i
					}
				}
				break
			}
			switch {
			case obj && c == '}', !obj && c == ']':
				n--
				i++
			case obj:
				return s.fail(i, ctxAfterMember)
			default:
				return s.fail(i, ctxAfterElem)
			}
		}
	}
}

// key scans an object key and the colon after it, starting at b[i], and
// returns the offset of the member's value.
func (s *scanner) key(i int) int {
	b := s.b
	if i >= len(b) {
		return s.fail(i, "")
	}
	if b[i] != '"' {
		return s.fail(i, ctxKey)
	}
	if i = s.str(i); i < 0 {
		return i
	}
	if i = skipWS(b, i); i >= len(b) {
		return s.fail(i, "")
	}
	if b[i] != ':' {
		return s.fail(i, ctxColon)
	}
	return skipWS(b, i+1)
}

// strSpecial marks the bytes that end a run of plain string content.
var strSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// specialMask returns a mask with the high bit set in the lowest byte of
// the little-endian word v that is a quote, a backslash or a control
// character, using the classic SWAR zero-byte tests. Higher bytes may be
// flagged spuriously (borrows propagate upwards), but the lowest flagged
// byte is always a special one, and a zero mask means there is none.
func specialMask(v uint64) uint64 {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	q := v ^ (lo * '"')
	bs := v ^ (lo * '\\')
	return ((q-lo)&^q | (bs-lo)&^bs | (v-lo*0x20)&^v) & hi
}

// str scans a string starting at the opening quote b[i] and returns the
// offset just past the closing quote.
func (s *scanner) str(i int) int {
	b := s.b
	i++
	for {
		for i+8 <= len(b) {
			if m := specialMask(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto special
			}
			i += 8
		}
		for i < len(b) && !strSpecial[b[i]] {
			i++
		}
	special:
		if i >= len(b) {
			return s.fail(i, "")
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			s.esc = true
			i++
			if i >= len(b) {
				return s.fail(i, "")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for j := i + 1; j < i+5; j++ {
					if j >= len(b) {
						return s.fail(j, "")
					}
					if hexVal(b[j]) < 0 {
						return s.fail(j, ctxHex)
					}
				}
				i += 5
			default:
				return s.fail(i, ctxEscape)
			}
		default: // a control character
			return s.fail(i, ctxString)
		}
	}
}

// hexVal returns the value of the hexadecimal digit c, or -1.
func hexVal(c byte) rune {
	switch {
	case c-'0' < 10:
		return rune(c - '0')
	case c|0x20-'a' < 6:
		return rune(c|0x20-'a') + 10
	}
	return -1
}

// number scans a number starting at b[i], which is '-' or a digit.
func (s *scanner) number(i int) int {
	b := s.b
	if b[i] == '-' {
		i++
		if i >= len(b) {
			return s.fail(i, "")
		}
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c-'1' < 9:
		i++
		for i < len(b) && b[i]-'0' < 10 {
			i++
		}
	default:
		return s.fail(i, ctxNumber)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) {
			return s.fail(i, "")
		}
		if b[i]-'0' >= 10 {
			return s.fail(i, ctxFraction)
		}
		for i++; i < len(b) && b[i]-'0' < 10; i++ {
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) {
			return s.fail(i, "")
		}
		if b[i]-'0' >= 10 {
			return s.fail(i, ctxExponent)
		}
		for i++; i < len(b) && b[i]-'0' < 10; i++ {
		}
	}
	return i
}

// literal scans the literal lit (true, false or null) at b[i].
func (s *scanner) literal(i int, lit string) int {
	b := s.b
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	for k := 1; k < len(lit); k++ {
		if i+k >= len(b) {
			return s.fail(i+k, "")
		}
		if b[i+k] != lit[k] {
			return s.fail(i+k, ctxLiteral+" "+lit)
		}
	}
	return s.fail(i, ctxLiteral) // unreachable
}
