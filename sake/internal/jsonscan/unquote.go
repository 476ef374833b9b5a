package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// Unquote returns the Go string for the raw JSON string v, which must be a
// complete JSON string literal including its quotes and nothing else (no
// surrounding whitespace). It returns a *[SyntaxError] if v is not exactly
// one valid JSON string.
//
// Escapes \" \\ \/ \b \f \n \r \t and \uXXXX are decoded; a \u escape pair
// forming a UTF-16 surrogate pair becomes one rune, and any other surrogate
// escape becomes U+FFFD, as in encoding/json. Other bytes, including invalid
// UTF-8, are copied unchanged.
//
// The result costs one allocation, the string itself, except for strings
// with escapes that decode to more than 128 bytes, which cost two.
func Unquote(v []byte) (string, error) {
	content, esc, err := stringContent(v)
	if err != nil {
		return "", err
	}
	if !esc {
		return string(content), nil
	}
	var buf [128]byte
	return string(appendUnescaped(buf[:0], content)), nil
}

// UnquoteBytes is like [Unquote] but returns bytes. When v contains no
// escapes the result aliases v (the bytes between the quotes) and nothing is
// allocated; otherwise the result is a new slice.
func UnquoteBytes(v []byte) ([]byte, error) {
	content, esc, err := stringContent(v)
	if err != nil {
		return nil, err
	}
	if !esc {
		return content, nil
	}
	return appendUnescaped(make([]byte, 0, len(content)), content), nil
}

// stringContent validates that v is exactly one JSON string and returns the
// bytes between its quotes and whether they contain escapes.
func stringContent(v []byte) (content []byte, escaped bool, err error) {
	s := scanner{b: v}
	if len(v) == 0 {
		s.fail(0, "")
		return nil, false, s.err()
	}
	if v[0] != '"' {
		s.fail(0, "looking for beginning of string")
		return nil, false, s.err()
	}
	end := s.str(0)
	if end < 0 {
		return nil, false, s.err()
	}
	if end != len(v) {
		s.fail(end, "after string literal")
		return nil, false, s.err()
	}
	content = v[1 : end-1]
	return content, bytes.IndexByte(content, '\\') >= 0, nil
}

// appendUnescaped appends the decoded form of src, the content of a valid
// JSON string, to dst. The decoded form is never longer than src.
func appendUnescaped(dst, src []byte) []byte {
	for {
		k := bytes.IndexByte(src, '\\')
		if k < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:k]...)
		src = src[k+1:]
		c := src[0]
		src = src[1:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(src)
			src = src[4:]
			if r >= 0xD800 && r < 0xE000 {
				// A high surrogate followed by an escaped low surrogate
				// forms one rune; anything else is replaced.
				if r < 0xDC00 && len(src) >= 6 && src[0] == '\\' && src[1] == 'u' {
					if r2 := hex4(src[2:]); r2 >= 0xDC00 && r2 < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
						src = src[6:]
						dst = utf8.AppendRune(dst, r)
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\' or '/'
			dst = append(dst, c)
		}
	}
}

// hex4 decodes the four hexadecimal digits at the start of b, which the
// scanner has already validated.
func hex4(b []byte) rune {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}
