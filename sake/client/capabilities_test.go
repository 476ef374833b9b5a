package client_test

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

// TestHasCapabilityAndExtension: a capability or an extension is declared
// when its member is there, whatever its value; anything that is not an
// object declares none.
func TestHasCapabilityAndExtension(t *testing.T) {
	caps := `{"tools": {"listChanged": true}, "logging": {}, "tasks": null,
		"extensions": {"io.example/one": {}, "io.example/\u0074wo": {"x": [1, {"y": "}"}]}}}`
	for _, c := range []struct {
		caps, name string
		capability bool
		extension  bool
	}{
		{caps, "tools", true, false},
		{caps, "logging", true, false},
		{caps, "tasks", true, false},
		{caps, "prompts", false, false},
		{caps, "listChanged", false, false},
		{caps, "io.example/one", false, true},
		{caps, "io.example/two", false, true},
		{caps, "io.example/three", false, false},
		{`{"extensions": null}`, "extensions", true, false},
		{`{"extensions": "io.example/one"}`, "io.example/one", false, false},
		{`null`, "tools", false, false},
		{``, "tools", false, false},
		{`["tools"]`, "tools", false, false},
		{`{"tools": {}`, "tools", false, false},
	} {
		info := client.ServerInfo{Capabilities: json.RawMessage(c.caps)}
		if got := info.HasCapability(c.name); got != c.capability {
			t.Errorf("HasCapability(%q) of %s = %v; want %v", c.name, c.caps, got, c.capability)
		}
		if got := info.HasExtension(c.name); got != c.extension {
			t.Errorf("HasExtension(%q) of %s = %v; want %v", c.name, c.caps, got, c.extension)
		}
	}
}

// TestHasCapabilityAllocatesNothing: a handshake-era client asks whether
// its server runs tasks on every call, so the question costs no
// allocation.
func TestHasCapabilityAllocatesNothing(t *testing.T) {
	info := client.ServerInfo{Capabilities: json.RawMessage(`{"tools": {"listChanged": true}, "logging": {}, "extensions": {"io.example/one": {}}}`)}
	if n := testing.AllocsPerRun(100, func() {
		_ = info.HasCapability("tasks")
		_ = info.HasExtension("io.example/one")
	}); n != 0 {
		t.Errorf("HasCapability and HasExtension allocate %v times; want 0", n)
	}
}
