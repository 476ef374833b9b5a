package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// mcpRequest is a typical MCP tools/call request, the hot-path input.
const mcpRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}}`

// validityCases are compared against encoding/json's Valid. Whether each is
// valid is decided by encoding/json, not by this list.
var validityCases = []string{
	// Empty and whitespace.
	``, ` `, "\t\n\r ", "\v1", "\f1", "\u00a01", "\xef\xbb\xbf1",
	// Literals.
	`true`, `false`, `null`, ` null `, `tru`, `nul`, `fals`, `t`, `n`, `f`,
	`True`, `NULL`, `truex`, `nulll`, `true false`, `truefalse`, `nan`, `NaN`,
	`Infinity`, `-Infinity`, `undefined`,
	// Numbers.
	`0`, `-0`, `1`, `-1`, `10`, `0.0`, `-0.0`, `1.5`, `123456789012345678901234567890`,
	`1e5`, `1E5`, `1e+5`, `1e-5`, `1E-05`, `0e0`, `-0.5e-10`, `1.5E+300`,
	`01`, `-01`, `00`, `0.`, `1.`, `.5`, `-.5`, `-`, `+1`, `--1`, `1e`, `1e+`,
	`1e-`, `1E`, `1.e5`, `1.5e`, `0x10`, `1_000`, `1 2`, `1,2`, `0 0`, `1.0.0`,
	`1e5e5`, `1e5.5`, `- 1`, `-a`, `2.`, `9.x`, `1ee5`, `1e++5`,
	// Strings.
	`""`, `"a"`, `"hello world"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`,
	`"\u0000"`, `"\u00e9"`, `"\u00E9"`, `"\uD83D\uDE00"`, `"\uD83D"`, `"\uDE00"`,
	`"\uFFFF"`, `"\x"`, `"\u12"`, `"\u12345"`, `"\u"`, `"\u123g"`, `"\U0041"`,
	`"\a"`, `"\0"`, `"\'"`, `"\`, `"\"`, `"abc`, `"`, `"a"b"`, `"a" "b"`,
	"\"a\nb\"", "\"a\tb\"", "\"a\x00b\"", "\"a\x1fb\"", "\"a\x7fb\"", "\"\xff\xfe\"",
	"\"h\xc3\xa9llo\"", `'a'`, `"abcdefghijklmnopqrstuvwxyz0123456789"`,
	`"abcdefghijklmnopqrstuvwxyz0123456789\"abcdefghijkl"`, `"abcdefgh\u00e9ijklmnopq"`,
	"\"abcdefghijklmnop\nqrstuvwxyz\"", `"abcdefghijklmnopqrstuvwxyz0123456789`,
	`"abcdefghijklmnop\`, `"abcdefghijklmnop\u00`,
	// Arrays.
	`[]`, `[ ]`, `[1]`, `[1,2,3]`, `[ 1 , 2 ]`, `[1,]`, `[,1]`, `[,]`, `[1 2]`,
	`[`, `]`, `[1`, `[1,`, `[[]]`, `[[],[]]`, `[[]`, `[]]`, `[}`, `[1}`,
	`["a",true,null,{"b":[1]}]`, `[1]x`, `[1] [2]`, `[][]`,
	// Objects.
	`{}`, `{ }`, `{"a":1}`, `{"a":1,"b":2}`, ` { "a" : 1 , "b" : [ ] } `,
	`{"a":1,}`, `{,"a":1}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{a:1}`, `{'a':1}`,
	`{1:1}`, `{"a":1 "b":2}`, `{"a":1]`, `{"a":{"b":{}}}`, `{"a":[{}]}`, `{`,
	`}`, `{"`, `{"a`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":1}}`,
	`{"a":1}{}`, `{"a":1,"a":2}`, `{"\u0061":1}`, `{"\x":1}`, `{"":""}`,
	`{"a":tru}`, `{"a":01}`, `{"a":-}`, `{"a":"\u12"}`, "{\"a\":\"\n\"}",
	`{"a":1}//c`, `/*c*/{}`, `{"a":1 /*c*/}`, `{"a":[1,2,]}`, `{"a":{"b":1,}}`,
	`{"a":[}`, `{"a":{]}`, `{"a":1]}`, `[{"a":1]}`, `[{"a":1}}`,
	mcpRequest, mcpRequest + ",", mcpRequest[:len(mcpRequest)-1],
}

// nest returns depth copies of open, then inner, then depth copies of close.
func nest(depth int, open, inner, close string) string {
	return strings.Repeat(open, depth) + inner + strings.Repeat(close, depth)
}

// deepCases exercise the nesting limit and the points where scanner.value
// recurses (every frameDepth levels).
func deepCases() []string {
	var cases []string
	for _, d := range []int{1, 2, 63, 64, 65, 66, 127, 128, 129, 130, 500, 9999, 10000, 10001, 20000} {
		cases = append(cases,
			nest(d, "[", "", "]"),
			nest(d, "[", "1", "]"),
			nest(d, `{"a":`, "1", "}"),
			nest(d, `{"a":`, "{}", "}"),
			nest(d, `[{"a":`, "[]", "}]"),
			nest(d, "[", "", "]")+"]",
			nest(d, "[", "", "]")[1:],
			nest(d, "[", "", "}"),
			nest(d, `{"a":`, "1", "]"),
			nest(d-1, "[", "[1,2]", "]"),
			strings.Repeat("[", d),
			strings.Repeat(`{"a":[1,`, d)+"0"+strings.Repeat("]}", d),
		)
		// Close one container, somewhere deep, with the wrong bracket.
		for _, at := range []int{0, d / 2, d - 1} {
			s := []byte(nest(d, `[{"k":`, "0", "}]"))
			pos := len(s) - 2*at - 2 // the '}' closing level d-at
			s[pos] = ']'
			cases = append(cases, string(s))
		}
		// Open containers of both kinds, closed properly, with siblings.
		var sb strings.Builder
		for k := range d {
			if k%3 == 0 {
				sb.WriteString(`{"x":[],"y":`)
			} else {
				sb.WriteString(`[0,`)
			}
		}
		sb.WriteString("null")
		for k := d - 1; k >= 0; k-- {
			if k%3 == 0 {
				sb.WriteString(`,"z":{}}`)
			} else {
				sb.WriteString(`,{}]`)
			}
		}
		cases = append(cases, sb.String())
	}
	return cases
}

func allValidityCases() []string {
	return append(append([]string(nil), validityCases...), deepCases()...)
}

func short(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:40]) + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return strconv.Quote(s)
}

// checkAgainstEncodingJSON checks Valid and Members on b against
// encoding/json.
func checkAgainstEncodingJSON(t *testing.T, b []byte) {
	t.Helper()
	want := json.Valid(b)
	if got := Valid(b); got != want {
		t.Fatalf("Valid(%s) = %v, encoding/json says %v", short(string(b)), got, want)
	}
	calls := 0
	err := Members(b, func(key, value []byte) error {
		calls++
		if !Valid(value) || Kind(value) == Invalid {
			t.Errorf("Members(%s): invalid member value %q", short(string(b)), value)
		}
		return nil
	})
	var se *SyntaxError
	switch {
	case !want:
		if !errors.As(err, &se) {
			t.Fatalf("Members(%s) = %v, want *SyntaxError", short(string(b)), err)
		}
		if se.Offset < 0 || se.Offset > len(b) {
			t.Fatalf("Members(%s): offset %d out of range", short(string(b)), se.Offset)
		}
		if calls != 0 {
			t.Fatalf("Members(%s) called fn %d times for invalid input", short(string(b)), calls)
		}
	case bytes.TrimLeft(b, " \t\r\n")[0] == '{':
		if err != nil {
			t.Fatalf("Members(%s) = %v, want nil", short(string(b)), err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if calls < len(m) {
			t.Fatalf("Members(%s): %d calls, but %d distinct keys", short(string(b)), calls, len(m))
		}
	default:
		if err != ErrNotObject {
			t.Fatalf("Members(%s) = %v, want ErrNotObject", short(string(b)), err)
		}
	}
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range allValidityCases() {
		checkAgainstEncodingJSON(t, []byte(c))
	}
}

func TestValidDepthLimit(t *testing.T) {
	t.Parallel()
	if !Valid([]byte(nest(maxDepth, "[", "", "]"))) {
		t.Error("nesting at the limit rejected")
	}
	b := []byte(nest(maxDepth+1, `{"a":`, "1", "}"))
	err := Members(b, func(_, _ []byte) error { return nil })
	var se *SyntaxError
	if !errors.As(err, &se) || se.Msg != "too deeply nested" {
		t.Fatalf("Members(too deep) = %v, want too deeply nested", err)
	}
	if want := maxDepth * len(`{"a":`); se.Offset != want {
		t.Errorf("offset = %d, want %d", se.Offset, want)
	}
}

// randomJSON appends a random, valid JSON value of at most the given depth.
func randomJSON(r *rand.Rand, b []byte, depth int) []byte {
	ws := func(b []byte) []byte {
		if r.IntN(4) == 0 {
			b = append(b, " \t\r\n"[r.IntN(4)])
		}
		return b
	}
	b = ws(b)
	k := r.IntN(9)
	if depth <= 0 && k >= 7 {
		k = r.IntN(7)
	}
	switch k {
	case 0:
		b = append(b, "true"...)
	case 1:
		b = append(b, "false"...)
	case 2:
		b = append(b, "null"...)
	case 3, 4:
		b = randomNumber(r, b)
	case 5, 6:
		b = randomString(r, b)
	case 7:
		b = append(b, '[')
		for i := range r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			b = randomJSON(r, b, depth-1)
		}
		b = ws(b)
		b = append(b, ']')
	case 8:
		b = append(b, '{')
		for i := range r.IntN(4) {
			if i > 0 {
				b = append(b, ',')
			}
			b = ws(b)
			b = randomString(r, b)
			b = ws(b)
			b = append(b, ':')
			b = randomJSON(r, b, depth-1)
		}
		b = ws(b)
		b = append(b, '}')
	}
	return ws(b)
}

func randomNumber(r *rand.Rand, b []byte) []byte {
	if r.IntN(2) == 0 {
		b = append(b, '-')
	}
	if r.IntN(4) == 0 {
		b = append(b, '0')
	} else {
		b = strconv.AppendInt(b, r.Int64N(1e12)+1, 10)
	}
	if r.IntN(2) == 0 {
		b = append(b, '.')
		b = strconv.AppendInt(b, r.Int64N(1e6), 10)
	}
	if r.IntN(3) == 0 {
		b = append(b, "eE"[r.IntN(2)])
		if r.IntN(2) == 0 {
			b = append(b, "+-"[r.IntN(2)])
		}
		b = strconv.AppendInt(b, r.Int64N(400), 10)
	}
	return b
}

var stringPieces = []string{
	"a", "key", "hello world", "é", "😀", "abcdefghijklmnopqrstuvwxyz", `\"`, `\\`, `\/`,
	`\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\uD83D\uDE00`, `\uD800`, `\uDFFF`,
	`\uDBFF\uDC00`, `\uDC00\uD800`, `\uD800\u0041`, `\u0000`, `\uFFFD`, "\x7f", "'",
}

func randomString(r *rand.Rand, b []byte) []byte {
	b = append(b, '"')
	for range r.IntN(6) {
		b = append(b, stringPieces[r.IntN(len(stringPieces))]...)
	}
	return append(b, '"')
}

// mutationBytes are inserted or substituted when mutating valid JSON.
const mutationBytes = "{}[],:\"\\ \n0123456789-+.eEtrufalsn/*\x00\x1f\xff"

func TestValidRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var b []byte
	for range 30000 {
		b = randomJSON(r, b[:0], 5)
		if !json.Valid(b) {
			t.Fatalf("generator produced invalid JSON %q", b)
		}
		checkAgainstEncodingJSON(t, b)
		// Mutate a copy in a few random ways.
		m := append([]byte(nil), b...)
		for range 1 + r.IntN(3) {
			p := r.IntN(len(m) + 1)
			c := mutationBytes[r.IntN(len(mutationBytes))]
			switch op := r.IntN(4); {
			case op == 0 && p < len(m):
				m = append(m[:p], m[p+1:]...)
			case op == 1 && p < len(m):
				m[p] = c
			case op == 2:
				m = append(m[:p], append([]byte{c}, m[p:]...)...)
			default:
				m = m[:p]
			}
		}
		checkAgainstEncodingJSON(t, m)
	}
}

type member struct{ key, value string }

func collect(t *testing.T, b []byte) []member {
	t.Helper()
	var got []member
	err := Members(b, func(key, value []byte) error {
		got = append(got, member{string(key), string(value)})
		return nil
	})
	if err != nil {
		t.Fatalf("Members(%s) = %v", short(string(b)), err)
	}
	return got
}

func TestMembers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []member
	}{
		{`{}`, nil},
		{" \n{ \t}\r\n", nil},
		{`{"a":1}`, []member{{"a", "1"}}},
		{` { "a" : 1 , "b" :"x" } `, []member{{"a", "1"}, {"b", `"x"`}}},
		{`{"b":2,"a":1}`, []member{{"b", "2"}, {"a", "1"}}},
		{`{"a":1,"a":2}`, []member{{"a", "1"}, {"a", "2"}}},
		{`{"":null}`, []member{{"", "null"}}},
		{`{"t":true,"f":false,"n":null,"num":-1.5e+3}`, []member{{"t", "true"}, {"f", "false"}, {"n", "null"}, {"num", "-1.5e+3"}}},
		{`{"o":{"x":[1,{"y":2}]} , "a":[ 1, 2 ]}`, []member{{"o", `{"x":[1,{"y":2}]}`}, {"a", "[ 1, 2 ]"}}},
		{`{"s":"a\"b\\","u":"\u00e9"}`, []member{{"s", `"a\"b\\"`}, {"u", `"\u00e9"`}}},
		{`{"a\"b":1}`, []member{{`a"b`, "1"}}},
		{`{"\u0061\n":1,"plain":2}`, []member{{"a\n", "1"}, {"plain", "2"}}},
		{`{"\uD83D\uDE00":1}`, []member{{"😀", "1"}}},
		{`{"\\":1}`, []member{{`\`, "1"}}},
		{`{"é":"ü"}`, []member{{"é", `"ü"`}}},
		{mcpRequest, []member{
			{"jsonrpc", `"2.0"`},
			{"id", "1"},
			{"method", `"tools/call"`},
			{"params", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}`},
		}},
	}
	for _, tt := range tests {
		got := collect(t, []byte(tt.in))
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Members(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// within reports whether sub is a sub-slice of b.
func within(sub, b []byte) bool {
	if len(sub) == 0 {
		return true
	}
	for i := range b {
		if &b[i] == &sub[0] {
			return i+len(sub) <= len(b)
		}
	}
	return false
}

func TestMembersAliasInput(t *testing.T) {
	t.Parallel()
	b := []byte(`{"plain": "v", "esc\u0061ped" : [1] }`)
	var keys [][]byte
	err := Members(b, func(key, value []byte) error {
		if !within(value, b) {
			t.Errorf("value %q does not alias the input", value)
		}
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || !within(keys[0], b) || within(keys[1], b) || string(keys[1]) != "escaped" {
		t.Errorf("keys = %q: want first aliased, second unescaped copy", keys)
	}
}

// manyMembers returns an object with n members, some with escaped keys.
func manyMembers(n int) []byte {
	var b []byte
	b = append(b, "{ "...)
	for i := range n {
		if i > 0 {
			b = append(b, " ,\n"...)
		}
		if i%7 == 3 {
			b = fmt.Appendf(b, `"k\u00e9%d" : "v%d"`, i, i)
		} else {
			b = fmt.Appendf(b, `"k%d":[%d,{"n":%d}]`, i, i, i)
		}
	}
	return append(b, " }"...)
}

func TestMembersMany(t *testing.T) {
	t.Parallel()
	for _, n := range []int{maxSpans - 1, maxSpans, maxSpans + 1, 3 * maxSpans} {
		b := manyMembers(n)
		got := collect(t, b)
		// Compare with encoding/json's token stream.
		dec := json.NewDecoder(bytes.NewReader(b))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var want []member
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			want = append(want, member{k.(string), string(v)})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("n=%d:\n got %q\nwant %q", n, got, want)
		}
	}
}

func TestMembersCallbackError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	b := manyMembers(3 * maxSpans)
	for _, at := range []int{0, 1, maxSpans - 1, maxSpans, maxSpans + 5, 3*maxSpans - 1} {
		calls := 0
		err := Members(b, func(key, value []byte) error {
			calls++
			if calls == at+1 {
				return fmt.Errorf("member %s: %w", key, stop)
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Errorf("at=%d: err = %v, want stop", at, err)
		}
		if calls != at+1 {
			t.Errorf("at=%d: fn called %d times after returning an error", at, calls)
		}
	}
}

func TestMembersInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{``, 0, "unexpected end of JSON input"},
		{`   `, 3, "unexpected end of JSON input"},
		{`{"a":1`, 6, "unexpected end of JSON input"},
		{`{"a":01}`, 6, "invalid character '1' after object key:value pair"},
		{`{"a":1,}`, 7, "invalid character '}' looking for beginning of object key string"},
		{`{"a" 1}`, 5, "invalid character '1' after object key"},
		{`{"a":[1,]}`, 8, "invalid character ']' looking for beginning of value"},
		{`{"a":[1}`, 7, "invalid character '}' after array element"},
		{`{"a":"\x"}`, 7, `invalid character 'x' in string escape code`},
		{`{"a":"\u12"}`, 10, `invalid character '"' in \u hexadecimal character escape`},
		{"{\"a\":\"\n\"}", 6, `invalid character '\n' in string literal`},
		{`{"a":tru}`, 8, "invalid character '}' in literal true"},
		{`{"a":1.}`, 7, "invalid character '}' after decimal point in numeric literal"},
		{`{"a":1e}`, 7, "invalid character '}' in exponent of numeric literal"},
		{`{"a":-}`, 6, "invalid character '}' in numeric literal"},
		{`{"a":1}x`, 7, "invalid character 'x' after top-level value"},
		{`{"a":1}{}`, 7, "invalid character '{' after top-level value"},
		{`{"a":'x'}`, 5, `invalid character '\'' looking for beginning of value`},
		{"{\"a\":\xff}", 5, "invalid character byte 0xff looking for beginning of value"},
		{`[1,]`, 3, "invalid character ']' looking for beginning of value"},
		{`1 2`, 2, "invalid character '2' after top-level value"},
	}
	for _, tt := range tests {
		called := false
		err := Members([]byte(tt.in), func(_, _ []byte) error { called = true; return nil })
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Members(%q) = %v, want *SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || se.Msg != tt.msg {
			t.Errorf("Members(%q) = {%d, %q}, want {%d, %q}", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
		if want := "jsonscan: " + tt.msg + " at offset " + strconv.Itoa(tt.offset); se.Error() != want {
			t.Errorf("Error() = %q, want %q", se.Error(), want)
		}
		if called {
			t.Errorf("Members(%q) called fn", tt.in)
		}
	}
}

func TestMembersNotObject(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`[1]`, `"x"`, `1`, ` -0.5 `, `null`, `true`, `false`, `[]`, `[{"a":1}]`} {
		err := Members([]byte(in), func(_, _ []byte) error {
			t.Errorf("Members(%q) called fn", in)
			return nil
		})
		if err != ErrNotObject {
			t.Errorf("Members(%q) = %v, want ErrNotObject", in, err)
		}
	}
	for _, in := range []string{`[1`, `"x`, `[1]]`, `x`} {
		var se *SyntaxError
		if err := Members([]byte(in), func(_, _ []byte) error { return nil }); !errors.As(err, &se) {
			t.Errorf("Members(%q) = %v, want *SyntaxError", in, err)
		}
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want ValueKind
	}{
		{``, Invalid}, {` 1`, Invalid}, {`x`, Invalid}, {`+1`, Invalid}, {`.5`, Invalid},
		{`"a"`, String}, {`"`, String},
		{`0`, Number}, {`9`, Number}, {`-1`, Number},
		{`{}`, Object}, {`[]`, Array},
		{`true`, True}, {`false`, False}, {`null`, Null},
	}
	for _, tt := range tests {
		if got := Kind([]byte(tt.in)); got != tt.want {
			t.Errorf("Kind(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	for k, name := range map[ValueKind]string{Invalid: "invalid", String: "string", Null: "null", 42: "ValueKind(42)"} {
		if k.String() != name {
			t.Errorf("ValueKind(%d).String() = %q, want %q", k, k.String(), name)
		}
	}
}

var unquoteCases = []string{
	`""`, `"a"`, `"hello, world"`, `"é😀"`, `"\""`, `"\\"`, `"\/"`, `"/"`,
	`"\b\f\n\r\t"`, `"a\nb\tc"`, `"\u0000"`, `"\u0041\u0042"`, `"\u00e9"`, `"\u00E9"`,
	`"\u20ac"`, `"\uFFFF"`, `"\uFFFD"`, `"\uD83D\uDE00"`, `"x\ud83d\ude00y"`,
	`"\uDBFF\uDFFF"`, `"\uD800\uDC00"`, `"\uD83D"`, `"\uD83Dx"`, `"\uD83D\n"`,
	`"\uDE00"`, `"\uDE00\uD83D"`, `"\uD83D\uD83D\uDE00"`, `"\uD83D\u0041"`,
	`"\uD83D\\uDE00"`, `"\uD83D\\"`, `"\uDFFF\uDFFF"`, `"\uD83D\uDE00\uD83D"`,
	`"abcdefghijklmnopqrstuvwxyz\n"`, `"` + strings.Repeat(`\u00e9ab`, 40) + `"`,
	`"` + strings.Repeat("x", 200) + `\n"`, `"` + strings.Repeat(`\uD83D\uDE00`, 50) + `"`,
	`"` + strings.Repeat(`\"`, 100) + `"`, "\"\x7f\"",
}

func TestUnquote(t *testing.T) {
	t.Parallel()
	for _, c := range unquoteCases {
		var want string
		if err := json.Unmarshal([]byte(c), &want); err != nil {
			t.Fatalf("encoding/json rejects %s: %v", c, err)
		}
		got, err := Unquote([]byte(c))
		if err != nil || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", c, got, err, want)
		}
		gotb, err := UnquoteBytes([]byte(c))
		if err != nil || string(gotb) != want {
			t.Errorf("UnquoteBytes(%s) = %q, %v; want %q", c, gotb, err, want)
		}
	}
}

func TestUnquoteInvalidUTF8(t *testing.T) {
	t.Parallel()
	// Bytes are passed through unchanged; encoding/json would coerce them.
	in := []byte("\"a\xffb\\n\"")
	got, err := Unquote(in)
	if err != nil || got != "a\xffb\n" {
		t.Errorf("Unquote(%q) = %q, %v", in, got, err)
	}
}

func TestUnquoteBytesAliases(t *testing.T) {
	t.Parallel()
	in := []byte(`"plain text"`)
	got, err := UnquoteBytes(in)
	if err != nil || string(got) != "plain text" || !within(got, in) {
		t.Errorf("UnquoteBytes(%q) = %q, %v; want an alias of the input", in, got, err)
	}
	in = []byte(`"a\tb"`)
	if got, _ = UnquoteBytes(in); within(got, in) {
		t.Errorf("UnquoteBytes(%q) aliases the input", in)
	}
}

func TestUnquoteErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		``, `a`, `1`, `null`, `"`, `"abc`, `"a"b`, `"a" `, ` "a"`, `"a""b"`, `'a'`,
		`"\x"`, `"\u12"`, `"\u12g4"`, `"\`, `"\"`, "\"a\nb\"", "\"\x00\"", `["a"]`,
	} {
		var se *SyntaxError
		if got, err := Unquote([]byte(in)); !errors.As(err, &se) || got != "" {
			t.Errorf("Unquote(%q) = %q, %v; want *SyntaxError", in, got, err)
		}
		if got, err := UnquoteBytes([]byte(in)); !errors.As(err, &se) || got != nil {
			t.Errorf("UnquoteBytes(%q) = %q, %v; want *SyntaxError", in, got, err)
		}
	}
}

// TestAllocs checks the allocation guarantees. It does not call t.Parallel:
// testing.AllocsPerRun counts every allocation in the process, and parallel
// tests do not run until the sequential ones have finished.
func TestAllocs(t *testing.T) {
	req := []byte(mcpRequest)
	many := manyMembers(3 * maxSpans)
	deep := []byte(nest(maxDepth/2, `[{"a":`, "1", "}]")) // maxDepth levels
	manyPlain := bytes.ReplaceAll(many, []byte(`\u00e9`), []byte("e"))
	noop := func(_, _ []byte) error { return nil }
	tests := []struct {
		name string
		want float64
		f    func()
	}{
		{"Members", 0, func() { _ = Members(req, noop) }},
		{"Members/many", 0, func() { _ = Members(manyPlain, noop) }},
		{"Valid", 0, func() { Valid(req) }},
		{"Valid/deep", 0, func() { Valid(deep) }},
		{"UnquoteBytes", 0, func() { _, _ = UnquoteBytes([]byte(`"hello"`)) }},
		{"Unquote", 1, func() { _, _ = Unquote([]byte(`"hello"`)) }},
		{"Unquote/escaped", 1, func() { _, _ = Unquote([]byte(`"caf\u00e9\n"`)) }},
	}
	if !Valid(deep) || !Valid(manyPlain) {
		t.Fatal("test inputs are invalid")
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.f); got != tt.want {
			t.Errorf("%s: %v allocs per run, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	for _, d := range []int{63, 64, 65, 129} {
		f.Add([]byte(nest(d, `[{"a":`, "1", "}]")))
	}
	f.Add(manyMembers(2 * maxSpans))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstEncodingJSON(t, b)
	})
}

func FuzzUnquote(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c))
	}
	for _, c := range []string{``, `"`, `"\u12"`, `"\uD83D\uDE0"`, "\"\xff\"", `"a" `, `"\x"`} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Unquote(b)
		gotb, errb := UnquoteBytes(b)
		isString := len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && json.Valid(b)
		if (err == nil) != isString || (errb == nil) != isString {
			t.Fatalf("Unquote(%q) = %v, UnquoteBytes = %v; encoding/json says string: %v", b, err, errb, isString)
		}
		if !isString {
			return
		}
		if string(gotb) != got {
			t.Fatalf("Unquote(%q) = %q but UnquoteBytes = %q", b, got, gotb)
		}
		if utf8.Valid(b) {
			var want string
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("Unquote(%q) = %q, encoding/json gives %q", b, got, want)
			}
		}
	})
}

// toolsList is a larger message: a tools/list result with schemas.
var toolsList = func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":42,"result":{"tools":[`)
	for i := range 20 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","title":"Tool number %d","description":"Does thing %d to the input and returns the \"result\" as text.\nSafe to retry.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"File path"},"limit":{"type":"integer","minimum":0,"maximum":1000,"default":100},"ratio":{"type":"number","default":0.5e-3},"flags":{"type":"array","items":{"type":"boolean"}}},"required":["path"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"destructiveHint":false}}`, i, i, i)
	}
	b.WriteString(`],"nextCursor":null}}`)
	return b.Bytes()
}()

var benchInputs = []struct {
	name string
	b    []byte
}{
	{"mcpRequest", []byte(mcpRequest)},
	{"toolsList", toolsList},
}

func BenchmarkValid(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name+"/jsonscan", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.b)))
			for b.Loop() {
				if !Valid(in.b) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run(in.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.b)))
			for b.Loop() {
				if !json.Valid(in.b) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func BenchmarkMembers(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name+"/jsonscan", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.b)))
			n := 0
			fn := func(_, _ []byte) error { n++; return nil }
			for b.Loop() {
				if err := Members(in.b, fn); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/encoding_json_RawMessage_map", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.b)))
			for b.Loop() {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(in.b, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkUnquote(b *testing.B) {
	for _, in := range []struct{ name, s string }{
		{"plain", `"tools/call"`},
		{"escaped", `"Does thing \"x\" to the input.\nSafe to retry \u00e9."`},
	} {
		v := []byte(in.s)
		b.Run(in.name+"/jsonscan", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Unquote(v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var s string
				if err := json.Unmarshal(v, &s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestSpecialMask(t *testing.T) {
	t.Parallel()
	interesting := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '\\', 'a', 0x7f, 0x80, 0x81, 0x9f, 0xa0, 0xa2, 0xdc, 0xff}
	r := rand.New(rand.NewPCG(3, 4))
	var w [8]byte
	for range 1 << 20 {
		for k := range w {
			if r.IntN(2) == 0 {
				w[k] = interesting[r.IntN(len(interesting))]
			} else {
				w[k] = byte(r.Uint32())
			}
		}
		want := 8
		for k, c := range w {
			if strSpecial[c] {
				want = k
				break
			}
		}
		got := 8
		if m := specialMask(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want {
			t.Fatalf("specialMask(% x): first special byte %d, want %d", w, got, want)
		}
	}
}

func TestElements(t *testing.T) {
	t.Parallel()
	var got []string
	err := Elements([]byte(` [1, "a" ,{"b":[2]}, [] ,null] `), func(v []byte) error {
		got = append(got, string(v))
		return nil
	})
	if err != nil || strings.Join(got, "|") != `1|"a"|{"b":[2]}|[]|null` {
		t.Fatalf("got %q, %v", got, err)
	}
	if err := Elements([]byte(`[]`), func([]byte) error { t.Error("called"); return nil }); err != nil {
		t.Error(err)
	}
	if err := Elements([]byte(`{}`), nil); err != ErrNotArray {
		t.Errorf("object: %v", err)
	}
	var se *SyntaxError
	if err := Elements([]byte(`[1,]`), nil); !errors.As(err, &se) {
		t.Errorf("trailing comma: %v", err)
	}
	stop := errors.New("stop")
	n := 0
	if err := Elements([]byte(`[1,2,3]`), func([]byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("stop: %v after %d", err, n)
	}
}
