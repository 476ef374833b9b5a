package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/internal/checkedargs"
)

// TestCheckedArgsEncoding: arguments a proxy marks as validated encode
// exactly as the same json.RawMessage does, on the fast path and through
// encoding/json (arguments over lines, a task, none), and in the headers
// of a tool with Mcp-Param parameters.
func TestCheckedArgsEncoding(t *testing.T) {
	for _, args := range []json.RawMessage{json.RawMessage(`{"text":"hi"}`), json.RawMessage(` {"a":[1,2,{"b":null}]} `), json.RawMessage(`null`), json.RawMessage("{\n\"a\": 1\n}"), json.RawMessage(``), nil} {
		for _, task := range []any{nil, map[string]any{}} {
			raw := &callParams{Name: "t", Arguments: args, Task: task}
			checked := &callParams{Name: "t", Arguments: &checkedargs.Args{JSON: args}, Task: task}
			want, werr := encodeParams("tools/call", raw)
			got, gerr := encodeParams("tools/call", checked)
			if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
				t.Errorf("%q task=%v: checked %s (%v), raw %s (%v)", args, task != nil, got, gerr, want, werr)
			}
		}
	}
	// The fast path takes checked arguments on one line.
	if b, ok := (&callParams{Name: "t", Arguments: &checkedargs.Args{JSON: json.RawMessage(`{"a":1}`)}}).appendFast(nil); !ok || string(b) != `{"name":"t","arguments":{"a":1}}` {
		t.Fatalf("fast path: %s, %v", b, ok)
	}
	c := &Client{toolHeaders: map[string][]headerParam{"t": {{header: "region", prop: "region"}}}}
	hs, err := c.paramHeaders("t", &checkedargs.Args{JSON: json.RawMessage(`{"region":"eu"}`)})
	if err != nil || len(hs) != 1 || hs[0] != [2]string{"Mcp-Param-region", "eu"} {
		t.Fatalf("headers %v, %v", hs, err)
	}
}

// BenchmarkEncodeCallParams encodes the params of a tools/call with about
// 1 KB of arguments, as a caller's json.RawMessage (scanned) and as a
// proxy's checked arguments (not scanned again).
func BenchmarkEncodeCallParams(b *testing.B) {
	args := json.RawMessage(`{"items":[` + strings.Repeat(`{"sku":"A-1","qty":3,"note":"fragile"},`, 24) + `{}]}`)
	for _, c := range []struct {
		name string
		args any
	}{{"raw", args}, {"checked", &checkedargs.Args{JSON: args}}} {
		b.Run(c.name, func(b *testing.B) {
			p := &callParams{Name: "order", Arguments: c.args}
			buf := make([]byte, 0, 2048)
			b.ReportAllocs()
			for b.Loop() {
				var ok bool
				if buf, ok = p.appendFast(buf[:0]); !ok {
					b.Fatal("not on the fast path")
				}
			}
		})
	}
}
