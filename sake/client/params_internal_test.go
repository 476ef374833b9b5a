package client

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestCallParamsFastEncoding: tools/call params with arguments that are
// JSON already encode as encoding/json encodes them, without it; what the
// fast path does not take (arguments over lines, invalid JSON, a task)
// goes through encoding/json.
func TestCallParamsFastEncoding(t *testing.T) {
	for _, p := range []*callParams{
		{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)},
		{Name: "quo\"te\n", Arguments: json.RawMessage(` {"a":[1,2,{"b":null}]} `)},
		{Name: "n", Arguments: json.RawMessage(`null`)},
	} {
		got, ok := p.appendFast(nil)
		want, _ := json.Marshal(p)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: fast %s (%v), encoding/json %s", p.Name, got, ok, want)
		}
	}
	for _, p := range []*callParams{
		{Name: "lines", Arguments: json.RawMessage("{\n\"a\": 1\n}")},
		{Name: "bad", Arguments: json.RawMessage(`{"a":`)},
		{Name: "task", Arguments: json.RawMessage(`{}`), Task: map[string]any{}},
		{Name: "map", Arguments: map[string]any{"a": 1}},
		{Name: "empty", Arguments: json.RawMessage(``)},
	} {
		if b, ok := p.appendFast(nil); ok {
			t.Errorf("%s: the fast path took it: %s", p.Name, b)
		}
	}
	// Through encodeParams, arguments over lines come out on one line.
	b, err := encodeParams("tools/call", &callParams{Name: "lines", Arguments: json.RawMessage("{\n\"a\": 1\n}")})
	if err != nil || bytes.ContainsAny(b, "\n") || string(b) != `{"name":"lines","arguments":{"a":1}}` {
		t.Fatalf("%s, %v", b, err)
	}
	if _, err := encodeParams("tools/call", &callParams{Name: "bad", Arguments: json.RawMessage(`{"a":`)}); err == nil {
		t.Fatal("invalid arguments were encoded")
	}
}
