package surface

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestLineDiff(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	LineDiff(&b, "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\nh\n", "")
	want := "  ...\n  b\n  c\n- d\n+ D\n  e\n  f\n  g\n+ h\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The golden file does not depend on the order the server lists things
// in, nor on what changes from run to run.
func TestEncodeIsCanonical(t *testing.T) {
	t.Parallel()
	a := &Surface{
		ProtocolVersion: "2026-07-28",
		Capabilities:    json.RawMessage(`{"tools":{},"resources":{"subscribe":true},"extensions":{"x":{}}}`),
		Extensions:      []string{"x"},
		Tools:           []protocol.ToolInfo{{Name: "b", InputSchema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`)}, {Name: "a"}},
		Resources:       []protocol.ResourceInfo{{URI: "x://1", Name: "one", Size: ptr(10)}},
	}
	b := &Surface{
		ProtocolVersion: "2026-07-28",
		Capabilities:    json.RawMessage(`{"extensions":{"x":{}},"resources":{"subscribe":true},"tools":{}}`),
		Extensions:      []string{"x"},
		Tools:           []protocol.ToolInfo{{Name: "a"}, {Name: "b", InputSchema: json.RawMessage(`{"properties":{"a":{},"z":{}},"type":"object"}`)}},
		Resources:       []protocol.ResourceInfo{{URI: "x://1", Name: "one", Size: ptr(99)}},
	}
	x, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(x) != string(y) {
		t.Errorf("the same surface gave\n%s\nand\n%s", x, y)
	}
	if strings.Contains(string(x), "size") || !strings.Contains(string(x), `"capabilities": [
    "resources",
    "tools"
  ]`) {
		t.Errorf("golden file:\n%s", x)
	}
	if _, err := Decode(x); err != nil {
		t.Errorf("Decode: %v", err)
	}
	if _, err := Decode([]byte(`{"tools":[]}`)); err == nil {
		t.Error("Decode took a file without the snapshot member")
	}
}

func ptr(n int64) *int64 { return &n }
