package sake

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

type fillInner struct {
	C string  `json:"c"`
	D *int    `json:"d,omitempty"`
	E []int   `json:"e"`
	F float32 `json:"f"`
}

type fillArgs struct {
	Name    string            `json:"name"`
	Count   int8              `json:"count"`
	Big     int64             `json:"big"`
	Size    uint16            `json:"size"`
	Ratio   float64           `json:"ratio"`
	On      bool              `json:"on"`
	Inner   fillInner         `json:"inner"`
	Ptr     *fillInner        `json:"ptr"`
	List    []fillInner       `json:"list"`
	Labels  map[string]string `json:"labels"`
	Any     any               `json:"any"`
	Skipped string            `json:"-"`
	NoTag   string
	//lint:ignore U1000 an unexported field, which neither decoder may fill
	private string
}

type fillTime struct {
	At time.Time `json:"at"`
}

type fillEmbedded struct {
	fillInner
	X int `json:"x"`
}

// The filler agrees with encoding/json: the same value, or the same
// error message.
func TestFillMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	inputs := []string{
		`{}`,
		`{"name":"a","count":-5,"big":123456789,"size":65535,"ratio":0.25,"on":true}`,
		`{"inner":{"c":"x","d":3,"e":[1,2,3],"f":1.5},"ptr":{"c":"p"},"list":[{"c":"1"},{"e":[]}]}`,
		`{"labels":{"a":"b","c":"d"},"any":{"k":[1,"two",null,true,{"z":2.5}]}}`,
		`{"NAME":"upper","Name":"title","notag":"folded","NoTag":"exact"}`,
		`{"unknown":1,"Skipped":"no","private":"no","-":"x"}`,
		`{"ptr":null,"list":null,"labels":null,"any":null,"name":null,"count":null}`,
		`{"count":128}`,
		`{"count":1.5}`,
		`{"size":-1}`,
		`{"name":7}`,
		`{"on":"true"}`,
		`{"inner":{"c":["x"]}}`,
		`{"inner":{"e":[1,"x",3]}}`,
		`{"labels":{"a":1}}`,
		`{"list":{}}`,
		`{"inner":"nope"}`,
		`{"big":9007199254740993}`,
		`{"big":-9223372036854775808}`,
		`{"inner":{"f":1e39}}`,
		`{"name":"a\u00e9\ud83d\ude00\n"}`,
	}
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			compareFill[fillArgs](t, in)
		})
	}
	compareFill[fillTime](t, `{"at":"2026-01-02T03:04:05Z"}`)
	compareFill[fillEmbedded](t, `{"c":"promoted","x":1}`)
	if fillerFor(reflect.TypeFor[fillTime]()) != nil || fillerFor(reflect.TypeFor[fillEmbedded]()) != nil {
		t.Error("types encoding/json must decode were planned")
	}
	if fillerFor(reflect.TypeFor[fillArgs]()) == nil {
		t.Error("a plain struct was not planned")
	}
}

func compareFill[T any](t *testing.T, in string) {
	t.Helper()
	var want T
	wantErr := json.Unmarshal([]byte(in), &want)
	generic, err := protocol.DecodeAny([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	tl := &tool{call: callable{argType: reflect.TypeFor[T]()}, fill: fillerFor(reflect.TypeFor[T]())}
	got := reflect.New(tl.call.argType)
	gotErr := tl.decodeArg(got, json.RawMessage(in), generic)
	switch {
	case wantErr != nil || gotErr != nil:
		if wantErr == nil || gotErr == nil || describeDecodeError(wantErr) != describeDecodeError(gotErr) {
			t.Errorf("%s: error %v, encoding/json says %v", in, gotErr, wantErr)
		}
	case !reflect.DeepEqual(got.Elem().Interface(), want):
		t.Errorf("%s:\n got %+v\nwant %+v", in, got.Elem().Interface(), want)
	}
}

func FuzzFill(f *testing.F) {
	f.Add(`{"name":"a","inner":{"e":[1,2]},"labels":{"x":"y"},"any":[1,{"a":null}]}`)
	f.Add(`{"count":3,"size":4,"list":[{"c":"d","d":1}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		in = strings.TrimSpace(in) // as the dispatcher hands arguments over
		if !json.Valid([]byte(in)) || !strings.HasPrefix(in, "{") {
			return // the validator refuses what is not an object first
		}
		compareFill[fillArgs](t, in)
	})
}

// FuzzDecodeAny checks the one-pass decoder against the member-by-member
// walk it replaced: the same value, or the same error message.
func FuzzDecodeAny(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `[1,"x",true]`, `{"a":1e400}`, `{"a":1e400,}`,
		`{"a":"x`, ` {}`, `{} `, `"s"`, `12`, `tru`, `{"text":"a","text":"b"}`, `{"k\u0065y":{}}`} {
		f.Add(s)
	}
	keys := map[string]string{"a": "a", "text": "text", "key": "key"}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := decodeAnyKeys([]byte(in), keys)
		want, wantErr := jsonscan.Walk([]byte(in))
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("%q: error %v, the walk says %v", in, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, the walk gives %#v", in, got, want)
		}
		// Arguments inside a validated message skip the validation of
		// their strings: the same value, and never a panic otherwise.
		checked, cerr := decodeArgs([]byte(in), keys, true, nil)
		if json.Valid([]byte(in)) && ((cerr == nil) != (err == nil) || !reflect.DeepEqual(checked, got)) {
			t.Fatalf("%q: checked %#v, %v; unchecked %#v, %v", in, checked, cerr, got, err)
		}
	})
}

// BenchmarkDecodeArgs compares the member-by-member walk with the one-pass
// decoder, validating and (inside a validated message) not.
func BenchmarkDecodeArgs(b *testing.B) {
	order := `{"id":"6f1c2b9e-1111-4a2b-9c3d-123456789abc","email":"a@example.com","name":"Ana","age":33,"active":true,` +
		`"billing":{"street":"Rua A","city":"Lisboa","zip":"12345","country":"PT"},"shipping":{"street":"Rue B","city":"Paris","zip":"75001","country":"FR"},` +
		`"items":[{"sku":"x1","qty":2,"price":3.5,"tags":["a","b"]},{"sku":"x2","qty":1,"price":10}],"when":"2026-01-02T03:04:05Z","priority":"high","score":0.5}`
	for _, c := range []struct{ name, in string }{
		{"100KiB", `{"text":"` + strings.Repeat("x", 100<<10) + `"}`},
		{"nested", order},
	} {
		in := []byte(c.in)
		for _, d := range []struct {
			name string
			fn   func([]byte) (any, error)
		}{
			{"walk", jsonscan.Walk},
			{"onepass", func(v []byte) (any, error) { return decodeArgs(v, nil, false, nil) }},
			{"checked", func(v []byte) (any, error) { return decodeArgs(v, nil, true, nil) }},
		} {
			b.Run(c.name+"/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.fn(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
