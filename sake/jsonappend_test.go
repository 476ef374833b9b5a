package sake

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// protocol.AppendString writes what protocol.MarshalNoEscape (encoding/json without HTML
// escaping) writes, for strings that exercise its fast path and each of
// its escapes at every alignment.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	specials := []string{"\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "é", "😀", "\u2028", "\u2029", "\xff", "<>&", "~"}
	for _, sp := range specials {
		for pad := 0; pad < 18; pad++ {
			s := strings.Repeat("a", pad) + sp + strings.Repeat("b", 17-pad)
			want, err := protocol.MarshalNoEscape(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := protocol.AppendString(nil, s); string(got) != string(want) {
				t.Fatalf("%q: got %s, want %s", s, got, want)
			}
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain ascii text that is long enough")
	f.Add("quote\" back\\ nl\n é \xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := protocol.MarshalNoEscape(s)
		if err != nil {
			t.Skip()
		}
		if got := protocol.AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("hello world, ", 8000)
	buf := make([]byte, 0, len(s)+2)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		buf = protocol.AppendString(buf[:0], s)
	}
}
