package protocol

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The dispatcher writes the JSON of its hot results by appending to a
// buffer instead of going through encoding/json, which would reflect over
// each value and then compact the output of every Marshaler again.

const hexDigits = "0123456789abcdef"

// SWAR constants: lo has 1 in every byte, hi the top bit of every byte.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// needsEscape8 returns a non-zero value when one of the 8 bytes of the
// little-endian word v is not ASCII that a JSON string holds unescaped (a
// quote, a backslash, a control character or a byte of 0x80 and above),
// with the classic SWAR byte tests.
func needsEscape8(v uint64) uint64 {
	q := v ^ (swarLo * '"')
	bs := v ^ (swarLo * '\\')
	return (v | (q-swarLo)&^q | (bs-swarLo)&^bs | (v-swarLo*0x20)&^v) & swarHi
}

// load8 returns the 8 bytes of s at i as a little-endian word (the
// compiler turns this into one load).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainPrefix returns the length of the longest prefix of s, a multiple
// of 8 bytes, that is plain ASCII: 32 bytes a loop while it can, then 8.
func plainPrefix(s string) int {
	i := 0
	for ; i+32 <= len(s); i += 32 {
		if needsEscape8(load8(s, i))|needsEscape8(load8(s, i+8))|
			needsEscape8(load8(s, i+16))|needsEscape8(load8(s, i+24)) != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if needsEscape8(load8(s, i)) != 0 {
			break
		}
	}
	return i
}

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does; HTML characters are not escaped. A long plain run is
// appended in one piece, so that a buffer too small for it grows once,
// into memory the runtime does not clear first.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Plain ASCII a word at a time.
		i += plainPrefix(s[i:])
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendKey appends ,"key": (or "key": when first is true).
func AppendKey(dst []byte, key string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = AppendString(dst, key)
	return append(dst, ':')
}

// AppendBase64 appends b as a JSON string of standard base64.
func AppendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// AppendAny appends the encoding/json form of v.
func AppendAny(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, x), nil
	case json.RawMessage:
		if len(x) == 0 {
			return append(dst, "null"...), nil
		}
		return append(dst, x...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		b, err := json.Marshal(x)
		return append(dst, b...), err
	}
	b, err := MarshalNoEscape(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// MarshalNoEscape is json.Marshal without HTML escaping and without the
// trailing newline an Encoder writes.
func MarshalNoEscape(v any) ([]byte, error) {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.b
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b, nil
}

// jsonBuffer is a minimal io.Writer over a byte slice.
type jsonBuffer struct{ b []byte }

func (w *jsonBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// AppendMeta appends ,"_meta":{...} merging the user's meta with the
// server's extra keys (raw JSON members without braces). Nothing is written
// when both are empty.
func AppendMeta(dst []byte, meta Meta, extra []byte) ([]byte, error) {
	if len(meta) == 0 && len(extra) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"_meta":{`...)
	first := true
	if len(extra) > 0 {
		dst = append(dst, extra...)
		first = false
	}
	for _, k := range meta.sortedKeys() {
		dst = AppendKey(dst, k, first)
		first = false
		var err error
		if dst, err = AppendAny(dst, meta[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}
