package validate

import (
	"strconv"
	"strings"
	"unicode"
)

// maxViolations is the number of violations after which validation stops
// collecting further failures.
const maxViolations = 10

// Error is returned by [Schema.Validate] when an instance does not conform.
// It lists every violation found, in a deterministic order, up to a limit of
// 10; collection stops once the limit is reached.
type Error struct {
	// Violations holds one entry per failed keyword. It is never empty.
	Violations []Violation
}

// Error joins the violations as "path: message" pairs separated by "; ".
// A violation at the root of the instance is named "arguments", for example
// "arguments: must be an object".
func (e *Error) Error() string {
	var b strings.Builder
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		if v.Path == "" {
			b.WriteString("arguments")
		} else {
			b.WriteString(v.Path)
		}
		b.WriteString(": ")
		b.WriteString(v.Message)
	}
	return b.String()
}

// Violation is one failed keyword.
type Violation struct {
	// Path locates the offending value from the root of the instance: "" for
	// the root itself, "name", "address.city", "tags[2]". Object keys that are
	// not plain words (for example keys containing dots or spaces) are quoted
	// in brackets: `["a.b"]`, `meta["content type"]`. For a missing required
	// property the path is the path the property would have.
	Path string
	// Message is a short lower-case sentence such as "is required" or
	// "must be a string, not a number".
	Message string
}

// pathElem is one step of an instance path: an object key or an array index.
type pathElem struct {
	key   string
	index int // array index, or -1 for an object key
}

// writePath renders a path in the dotted/bracketed form documented on
// [Violation.Path].
func writePath(b *strings.Builder, path []pathElem) {
	for _, e := range path {
		switch {
		case e.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
		case bareKey(e.key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(e.key))
			b.WriteByte(']')
		}
	}
}

// bareKey reports whether an object key can be written without quoting.
func bareKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		switch {
		case r == '_' || r == '-' || r == '$' || r == '@':
		case r < 0x80 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'):
		case r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		default:
			return false
		}
	}
	return true
}

// collector accumulates violations in collecting mode. A nil *collector
// means fast mode: stop at the first failure and record nothing. The
// collector also tracks the instance path of the value being validated, so
// paths cost nothing in fast mode and are only rendered when a violation is
// recorded.
type collector struct {
	list []Violation
	path []pathElem
}

func (c *collector) full() bool { return len(c.list) >= maxViolations }

func (c *collector) push(key string) { c.path = append(c.path, pathElem{key: key, index: -1}) }

func (c *collector) pushIndex(i int) { c.path = append(c.path, pathElem{index: i}) }

func (c *collector) pop() { c.path = c.path[:len(c.path)-1] }

// add records a violation at the current path.
func (c *collector) add(msg string) {
	if len(c.list) < maxViolations {
		var b strings.Builder
		writePath(&b, c.path)
		c.list = append(c.list, Violation{Path: b.String(), Message: msg})
	}
}

// addAt records a violation at the member key of the current value.
func (c *collector) addAt(key, msg string) {
	c.push(key)
	c.add(msg)
	c.pop()
}

// plural renders "1 item" / "3 items".
func plural(n int, word string) string {
	s := strconv.Itoa(n) + " "
	switch {
	case n == 1:
		return s + word
	case strings.HasSuffix(word, "y"):
		return s + word[:len(word)-1] + "ies"
	}
	return s + word + "s"
}
