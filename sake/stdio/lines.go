package stdio

import (
	"bufio"
	"bytes"
	"io"
)

// readBufferSize is the size of the input buffer. Lines longer than it
// are assembled from several reads.
const readBufferSize = 64 << 10

// lineReader splits the input into lines, never holding more than the
// limit of an over-long one in memory.
type lineReader struct {
	br  *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, min(readBufferSize, max+2)), max: max}
}

// read returns the next line without its "\n" or "\r\n", in a slice the
// caller owns (nil for an empty line). A line longer than the limit is
// discarded as it is read, and read returns its length instead (tooLong >
// 0, line nil). A last line without a terminator comes with io.EOF; a line
// cut short by another read error is dropped.
func (lr *lineReader) read() (line []byte, tooLong int, err error) {
	var (
		acc   []byte // the line so far, when it spans several reads
		whole []byte // the line, when one read holds it whole (not a copy)
		n     int    // bytes of the line read so far, terminator included
		over  bool
	)
	for {
		frag, e := lr.br.ReadSlice('\n')
		n += len(frag)
		switch {
		case over:
		case n > lr.max+2: // more than the limit and "\r\n": too long whatever follows
			over, acc = true, nil
		case acc == nil && e != bufio.ErrBufferFull:
			whole = frag
		default:
			acc = append(acc, frag...)
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil && e != io.EOF {
			return nil, 0, e
		}
		if over {
			return nil, n - eolLen(frag), e
		}
		if whole != nil {
			acc = whole
		}
		acc = acc[:len(acc)-eolLen(acc)]
		switch {
		case len(acc) > lr.max:
			return nil, len(acc), e
		case len(acc) == 0:
			return nil, 0, e
		case whole != nil:
			return bytes.Clone(acc), 0, e
		}
		return acc, 0, e
	}
}

// eolLen returns the length of the terminator b ends with: 2 for "\r\n",
// 1 for "\n", else 0.
func eolLen(b []byte) int {
	switch {
	case len(b) >= 2 && b[len(b)-2] == '\r' && b[len(b)-1] == '\n':
		return 2
	case len(b) >= 1 && b[len(b)-1] == '\n':
		return 1
	}
	return 0
}

// blank reports whether a line holds only JSON whitespace.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// lineBuffered reports whether a whole line waits in the buffer, so that
// reading it will not wait for input.
func (lr *lineReader) lineBuffered() bool {
	n := lr.br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := lr.br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}
