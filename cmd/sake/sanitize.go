package main

import (
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// What a server sends is shown to a person only through safeText or a
// safeWriter: a hostile server's terminal escapes (ESC, CSI, OSC...),
// other control characters and bidirectional overrides are written as
// visible escapes (\x1b, \u009b), so they cannot move the cursor, rewrite
// the screen, fake a prompt, retitle the window or set the clipboard.
// Newlines and tabs are kept; a CR before a newline is dropped. -json
// output is not shown through them: it stays exact.

// safeText returns s with its control characters escaped.
func safeText(s string) string {
	if !needsEscape(s) {
		return s
	}
	return string(appendSafe(nil, []byte(s)))
}

// needsEscape reports whether s holds anything appendSafe changes.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// unsafeRune reports whether r, a rune past ASCII, is escaped: the C1
// controls and the bidirectional embeddings, overrides and isolates.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// appendSafe appends b to dst with its control characters escaped.
func appendSafe(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != 0x7f, c == '\n', c == '\t':
				dst = append(dst, c)
			case c == '\r' && i+1 < len(b) && b[i+1] == '\n':
			default:
				dst = append(dst, `\x`...)
				dst = appendHex(dst, uint32(c), 2)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\x`...)
			dst = appendHex(dst, uint32(c), 2)
		case unsafeRune(r):
			dst = append(dst, `\u`...)
			dst = appendHex(dst, uint32(r), 4)
		default:
			dst = append(dst, b[i:i+size]...)
		}
		i += size
	}
	return dst
}

func appendHex(dst []byte, v uint32, width int) []byte {
	s := strconv.FormatUint(uint64(v), 16)
	for n := len(s); n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// safeWriter escapes the control characters of what is written through
// it. A UTF-8 sequence cut between two writes is kept until the next.
type safeWriter struct {
	mu    sync.Mutex
	w     io.Writer
	carry []byte
	buf   []byte
}

// safe returns a safeWriter on w.
func safe(w io.Writer) *safeWriter { return &safeWriter{w: w} }

func (s *safeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := p
	if len(s.carry) > 0 {
		in = append(s.carry, p...)
		s.carry = nil
	}
	// Keep an incomplete sequence at the end for the next write.
	if n := incompleteTail(in); n > 0 {
		s.carry = append([]byte(nil), in[len(in)-n:]...)
		in = in[:len(in)-n]
	}
	s.buf = appendSafe(s.buf[:0], in)
	if _, err := s.w.Write(s.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail returns the length of a UTF-8 sequence that b ends with
// and that more bytes could complete (0 when none).
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}
