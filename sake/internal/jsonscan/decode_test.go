package jsonscan

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// checkDecode compares Decoder.Decode on b with encoding/json (the value)
// and with the scanner (the syntax error).
func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	got, err := Decoder{}.Decode(b)
	checkValidWalks(t, b)
	if !json.Valid(b) {
		s := scanner{b: b}
		j := s.value(skipWS(b, 0), 0)
		if j >= 0 {
			s.fail(skipWS(b, j), ctxTopLevel)
		}
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != s.err().Error() {
			t.Fatalf("Decode(%s) = %v, want %v", short(string(b)), err, s.err())
		}
		return
	}
	var want any
	if jerr := json.Unmarshal(b, &want); jerr != nil {
		// Valid JSON that encoding/json refuses as an any: a number out of
		// the range of float64.
		var ne *strconv.NumError
		if !errors.As(err, &ne) || !errors.Is(ne.Err, strconv.ErrRange) {
			t.Fatalf("Decode(%s) = %v; encoding/json says %v", short(string(b)), err, jerr)
		}
		return
	}
	if err != nil {
		t.Fatalf("Decode(%s) = %v", short(string(b)), err)
	}
	if utf8.Valid(b) && !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%s) = %#v, encoding/json gives %#v", short(string(b)), got, want)
	}
}

func TestDecodeCases(t *testing.T) {
	t.Parallel()
	for _, c := range allValidityCases() {
		checkDecode(t, []byte(c))
	}
	for _, c := range []string{`1e400`, `[1e400]`, `{"a":-1e999}`, `[1e400,]`, `{"a":1e400} x`,
		`{"a":"\u00e9\n","\u0062":[true,false,null,{}],"c":{"d":[]}}`, `[[[["x"]]]]`} {
		checkDecode(t, []byte(c))
	}
}

func TestDecodeRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var b []byte
	for range 20000 {
		b = randomJSON(r, b[:0], 5)
		checkDecode(t, b)
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
		checkDecode(t, m)
	}
}

func TestDecodeDepth(t *testing.T) {
	t.Parallel()
	if _, err := (Decoder{}).Decode([]byte(nest(maxDepth, "[", "", "]"))); err != nil {
		t.Errorf("nesting at the limit: %v", err)
	}
	_, err := Decoder{}.Decode([]byte(nest(maxDepth+1, `{"a":`, "1", "}")))
	if err == nil || !strings.Contains(err.Error(), "too deeply nested") {
		t.Errorf("nesting beyond the limit: %v", err)
	}
}

func TestDecodeSharesKeys(t *testing.T) {
	keys := map[string]string{"text": "text", "num": "num"}
	// Longer than maxSharedText, so that strings are allocated one by one.
	b := []byte(`{"text":"a","num":1,"other":{"text":2},"pad":"` + strings.Repeat("p", maxSharedText) + `"}`)
	v, err := Decoder{Keys: keys}.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	for k := range m {
		if k == "text" && unsafe.StringData(k) != unsafe.StringData(keys["text"]) {
			t.Error("the key text was allocated again")
		}
	}
	for k := range m["other"].(map[string]any) {
		if unsafe.StringData(k) != unsafe.StringData(keys["text"]) {
			t.Error("the nested key text was allocated again")
		}
	}
	shared := testing.AllocsPerRun(100, func() { _, _ = Decoder{Keys: keys}.Decode(b) })
	own := testing.AllocsPerRun(100, func() { _, _ = Decoder{}.Decode(b) })
	if shared != own-3 {
		t.Errorf("%v allocations with shared keys, %v without; want 3 fewer", shared, own)
	}
}

func TestDecodeSharesShortText(t *testing.T) {
	b := []byte(`{"first":"xy","second":"zw","n":[1,2]}`)
	v, err := Decoder{}.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	first, second := m["first"].(string), m["second"].(string)
	if d := uintptr(unsafe.Pointer(unsafe.StringData(second))) - uintptr(unsafe.Pointer(unsafe.StringData(first))); d != 14 {
		t.Errorf("the strings of a short text are not cut from one copy (%d bytes apart)", d)
	}
	// Four strings of two bytes or more cost one copy of the text, not
	// four allocations; a text too long to share allocates each.
	long := []byte(`{"first":"xy","second":"zw","n":[1,2]}` + strings.Repeat(" ", maxSharedText))
	shared := testing.AllocsPerRun(100, func() { _, _ = Decoder{}.Decode(b) })
	own := testing.AllocsPerRun(100, func() { _, _ = Decoder{}.Decode(long) })
	if shared != own-3 {
		t.Errorf("%v allocations for a short text, %v for a long one; want 3 fewer", shared, own)
	}
}

func TestDecodeCopiesStrings(t *testing.T) {
	t.Parallel()
	b := []byte(`{"k":"value","a":["x"]}`)
	v, err := Decoder{}.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = ' '
	}
	m := v.(map[string]any)
	if m["k"] != "value" || m["a"].([]any)[0] != "x" {
		t.Errorf("decoded values alias the input: %#v", m)
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":1e400,"b":[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, b)
	})
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"100KiB", `{"text":"` + strings.Repeat("x", 100<<10) + `"}`},
		{"nested", `{"id":"6f1c2b9e-1111-4a2b-9c3d-123456789abc","email":"a@example.com","name":"Ana","age":33,"active":true,` +
			`"billing":{"street":"Rua A","city":"Lisboa","zip":"12345","country":"PT"},"shipping":{"street":"Rue B","city":"Paris","zip":"75001","country":"FR"},` +
			`"items":[{"sku":"x1","qty":2,"price":3.5,"tags":["a","b"]},{"sku":"x2","qty":1,"price":10}],"when":"2026-01-02T03:04:05Z","priority":"high","score":0.5}`},
	} {
		in := []byte(c.in)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Decoder{}).Decode(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// checkValidWalks checks what trusts b to be valid: on valid JSON,
// Decoder{Valid: true}, MembersValid and SkipValid agree with the
// validating walks; on anything else they must not panic.
func checkValidWalks(t *testing.T, b []byte) {
	t.Helper()
	fast, fastErr := Decoder{Valid: true}.Decode(b)
	var fastMembers []member
	_ = MembersValid(b, func(key, value []byte) error {
		fastMembers = append(fastMembers, member{string(key), string(value)})
		return nil
	})
	start := skipWS(b, 0)
	end := SkipValid(b, start)
	if !json.Valid(b) {
		return
	}
	want, wantErr := Decoder{}.Decode(b)
	if (fastErr == nil) != (wantErr == nil) || !reflect.DeepEqual(fast, want) {
		t.Fatalf("Decode(%s) with Valid = %#v, %v; without: %#v, %v", short(string(b)), fast, fastErr, want, wantErr)
	}
	s := scanner{b: b}
	if wantEnd := s.value(start, 0); end != wantEnd {
		t.Fatalf("SkipValid(%s) = %d, want %d", short(string(b)), end, wantEnd)
	}
	if b[start] == '{' {
		if got := collect(t, b); !reflect.DeepEqual(fastMembers, got) {
			t.Fatalf("MembersValid(%s) = %q, Members gives %q", short(string(b)), fastMembers, got)
		}
	}
}

func TestDecodeInto(t *testing.T) {
	into := map[string]any{}
	v, err := Decoder{Into: into}.Decode([]byte(`{"a":1,"b":{"c":"d"}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.(map[string]any)
	if !ok || reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(into).UnsafePointer() {
		t.Fatalf("Decode returned %#v, not the Into map", v)
	}
	if !reflect.DeepEqual(into, map[string]any{"a": 1.0, "b": map[string]any{"c": "d"}}) {
		t.Errorf("Into = %#v", into)
	}
	nested := into["b"].(map[string]any)
	if reflect.ValueOf(nested).UnsafePointer() == reflect.ValueOf(into).UnsafePointer() {
		t.Error("a nested object was decoded into the Into map")
	}

	// Not an object: Into is left alone.
	clear(into)
	for _, text := range []string{`[{"x":1}]`, `"s"`, `3`} {
		if _, err := (Decoder{Into: into}).Decode([]byte(text)); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if len(into) != 0 {
			t.Errorf("%s: Into = %#v, want it empty", text, into)
		}
	}
	// Invalid text is an error as without Into.
	if _, err := (Decoder{Into: into}).Decode([]byte(`{"a":}`)); err == nil {
		t.Error("invalid text decoded")
	}
}
