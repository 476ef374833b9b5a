package stdio

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

type lineResult struct {
	line    string
	tooLong int
	err     error
}

func readAll(t *testing.T, r io.Reader, max int) []lineResult {
	t.Helper()
	lr := newLineReader(r, max)
	var got []lineResult
	for range 1000 {
		line, n, err := lr.read()
		if line != nil || n > 0 || err != nil {
			got = append(got, lineResult{string(line), n, err})
		}
		if err != nil {
			return got
		}
	}
	t.Fatal("the input never ended")
	return nil
}

func TestLineReader(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want []lineResult
	}{
		{"a\nbb\r\n\nccc", 10, []lineResult{{"a", 0, nil}, {"bb", 0, nil}, {"ccc", 0, io.EOF}}},
		{"a\n", 10, []lineResult{{"a", 0, nil}, {"", 0, io.EOF}}},
		{"", 10, []lineResult{{"", 0, io.EOF}}},
		{"1234\n12345\n123456\n1234\r\n12345\r\nx", 5, []lineResult{
			{"1234", 0, nil}, {"12345", 0, nil}, {"", 6, nil}, {"1234", 0, nil}, {"12345", 0, nil}, {"x", 0, io.EOF}}},
		{strings.Repeat("z", 100) + "\nok\n" + strings.Repeat("z", 50), 20, []lineResult{
			{"", 100, nil}, {"ok", 0, nil}, {"", 50, io.EOF}}},
		// Lines longer than the read buffer are assembled.
		{strings.Repeat("a", 200<<10) + "\r\nb", 300 << 10, []lineResult{{strings.Repeat("a", 200<<10), 0, nil}, {"b", 0, io.EOF}}},
	} {
		got := readAll(t, strings.NewReader(tc.in), tc.max)
		if len(got) != len(tc.want) {
			t.Errorf("%.20q (max %d): got %d results, want %d: %v", tc.in, tc.max, len(got), len(tc.want), got)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%.20q (max %d) #%d: got %.20q %d %v, want %.20q %d %v", tc.in, tc.max, i,
					got[i].line, got[i].tooLong, got[i].err, tc.want[i].line, tc.want[i].tooLong, tc.want[i].err)
			}
		}
	}
}

func TestLineReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("ok\npartial"), iotestErr{boom})
	got := readAll(t, r, 100)
	if len(got) != 2 || got[0] != (lineResult{"ok", 0, nil}) || got[1].line != "" || got[1].err != boom {
		t.Errorf("got %v", got)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

var xs = []byte(strings.Repeat("x", 64<<10))

// repeatReader yields n bytes of 'x', then a newline.
type repeatReader struct{ n int }

func (r *repeatReader) Read(p []byte) (int, error) {
	switch {
	case r.n < 0:
		return 0, io.EOF
	case r.n == 0:
		r.n = -1
		return copy(p, "\n"), nil
	}
	i := copy(p[:min(len(p), r.n)], xs)
	r.n -= i
	return i, nil
}

func TestLineReaderDiscardsWithoutBuffering(t *testing.T) {
	const size = 32 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lr := newLineReader(&repeatReader{n: size}, 1<<20)
	line, n, err := lr.read()
	runtime.ReadMemStats(&after)
	if line != nil || n != size || err != nil {
		t.Fatalf("got %d bytes, tooLong %d, %v", len(line), n, err)
	}
	// The line was 32 MiB; the reader holds at most the limit (1 MiB) of
	// it, plus the copies of growing that.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d bytes to discard a %d-byte line", alloc, size)
	}
}
