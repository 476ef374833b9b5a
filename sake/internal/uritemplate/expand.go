package uritemplate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Expand substitutes vars into the template following RFC 6570 section 3.2
// and returns the resulting URI reference.
//
// A value is a string, a []string (list) or a map[string]string
// (associative array; its members are expanded in sorted key order because
// Go maps are unordered). A variable that is missing from vars, nil, an
// empty list or an empty map is undefined and is omitted together with the
// separators it would need. Values are percent-encoded as the operator
// requires: every character outside the unreserved set is encoded, except
// that reserved characters and existing %XX triplets are kept as is for
// {+var} and {#var}. Expand returns an error for a value of any other type,
// or for a prefix modifier applied to a list or map.
func (t *Template) Expand(vars map[string]any) (string, error) {
	if t == nil {
		return "", nil
	}
	var b strings.Builder
	b.Grow(len(t.raw) + 16)
	for i := range t.parts {
		p := &t.parts[i]
		if p.op == nil {
			b.WriteString(p.enc)
			continue
		}
		if err := expandExpression(&b, p, vars); err != nil {
			return "", fmt.Errorf("uritemplate: expand %q: %w", t.raw, err)
		}
	}
	return b.String(), nil
}

func expandExpression(b *strings.Builder, p *part, vars map[string]any) error {
	op := p.op
	started := false
	separate := func() {
		if !started {
			started = true
			if op.first != 0 {
				b.WriteByte(op.first)
			}
			return
		}
		b.WriteByte(op.sep)
	}
	for _, v := range p.vars {
		raw, ok := vars[v.name]
		if !ok || raw == nil {
			continue
		}
		switch val := raw.(type) {
		case string:
			separate()
			if op.named {
				b.WriteString(v.name)
				if val == "" {
					b.WriteString(op.ifemp)
					continue
				}
				b.WriteByte('=')
			}
			if v.prefix > 0 {
				val = truncate(val, v.prefix, op.reserved)
			}
			encodeValue(b, val, op.reserved)
		case []string:
			if len(val) == 0 {
				continue
			}
			if v.prefix > 0 {
				return compositePrefixError(v, "list")
			}
			separate()
			if !v.explode {
				if op.named {
					b.WriteString(v.name)
					b.WriteByte('=')
				}
				for i, item := range val {
					if i > 0 {
						b.WriteByte(',')
					}
					encodeValue(b, item, op.reserved)
				}
				continue
			}
			for i, item := range val {
				if i > 0 {
					b.WriteByte(op.sep)
				}
				if op.named {
					b.WriteString(v.name)
					if item == "" {
						b.WriteString(op.ifemp)
						continue
					}
					b.WriteByte('=')
				}
				encodeValue(b, item, op.reserved)
			}
		case map[string]string:
			if len(val) == 0 {
				continue
			}
			if v.prefix > 0 {
				return compositePrefixError(v, "map")
			}
			separate()
			keys := slices.Sorted(maps.Keys(val))
			if !v.explode {
				if op.named {
					b.WriteString(v.name)
					b.WriteByte('=')
				}
				for i, key := range keys {
					if i > 0 {
						b.WriteByte(',')
					}
					encodeValue(b, key, op.reserved)
					b.WriteByte(',')
					encodeValue(b, val[key], op.reserved)
				}
				continue
			}
			for i, key := range keys {
				if i > 0 {
					b.WriteByte(op.sep)
				}
				encodeValue(b, key, op.reserved)
				if op.named && val[key] == "" {
					b.WriteString(op.ifemp)
					continue
				}
				b.WriteByte('=')
				encodeValue(b, val[key], op.reserved)
			}
		default:
			return fmt.Errorf("variable %q: unsupported value type %T (want string, []string or map[string]string)", v.name, raw)
		}
	}
	return nil
}

func compositePrefixError(v varSpec, kind string) error {
	return fmt.Errorf("variable %q: prefix modifier :%d cannot be applied to a %s value", v.name, v.prefix, kind)
}

// truncate returns the first n characters of s. With reserved set, a %XX
// triplet counts as one character and is never split.
func truncate(s string, n int, reserved bool) string {
	i := 0
	for count := 0; i < len(s) && count < n; count++ {
		if reserved && s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			i += 3
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

const upperHex = "0123456789ABCDEF"

// unreservedSet holds ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986).
var unreservedSet = func() (s byteSet) {
	for c := 0; c < 256; c++ {
		if isVarChar(byte(c)) || c == '-' || c == '.' || c == '~' {
			s.add(byte(c))
		}
	}
	return s
}()

// reservedSet holds gen-delims and sub-delims (RFC 3986).
var reservedSet = func() (s byteSet) {
	for _, c := range []byte(":/?#[]@!$&'()*+,;=") {
		s.add(c)
	}
	return s
}()

// encodeValue writes s percent-encoded. Unreserved characters are always
// kept; with reserved set, reserved characters and well-formed %XX triplets
// are kept too. Everything else is encoded byte by byte (UTF-8).
func encodeValue(b *strings.Builder, s string, reserved bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreservedSet.has(c):
			b.WriteByte(c)
		case reserved && reservedSet.has(c):
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
}
