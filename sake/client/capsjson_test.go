package client

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// TestAppendCapabilitiesIsMarshal: the capabilities a forwarded request
// declares are what json.Marshal writes (but for its HTML escapes).
func TestAppendCapabilitiesIsMarshal(t *testing.T) {
	t.Parallel()
	for _, caps := range []protocol.ClientCapabilities{
		{},
		{Roots: &protocol.RootsCapability{}},
		{Roots: &protocol.RootsCapability{ListChanged: true}, Sampling: &protocol.SamplingCapability{}},
		{Sampling: &protocol.SamplingCapability{Context: json.RawMessage(`{}`), Tools: json.RawMessage(`{ "a" : 1 }`)}},
		{Elicitation: &protocol.ElicitationCapability{}},
		{Elicitation: &protocol.ElicitationCapability{Form: json.RawMessage(`{}`), URL: json.RawMessage(`{}`)}},
		{Extensions: map[string]json.RawMessage{protocol.TaskExtension: json.RawMessage(`{}`), "a/<b>\u00e9": json.RawMessage(`[1, 2]`), "n": nil}},
		{Experimental: map[string]json.RawMessage{"x": json.RawMessage(`true`)}, Tasks: json.RawMessage(`{"list":{}}`)},
	} {
		want, err := json.Marshal(caps)
		if err != nil {
			t.Fatal(err)
		}
		got := appendCapabilities(nil, &caps)
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("appendCapabilities wrote %s: %v", got, err)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("appendCapabilities = %s\n          json.Marshal = %s", got, want)
		}
	}
}

func BenchmarkAppendCapabilities(b *testing.B) {
	caps := protocol.ClientCapabilities{Roots: &protocol.RootsCapability{ListChanged: true}, Elicitation: &protocol.ElicitationCapability{},
		Extensions: map[string]json.RawMessage{protocol.TaskExtension: json.RawMessage(`{}`)}}
	b.ReportAllocs()
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = appendCapabilities(buf[:0], &caps)
	}
}
