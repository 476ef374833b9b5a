package proxy

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestCallerEnvelopeOfAHandshakeEraCaller: the envelope of a
// handshake-era caller declares the tasks extension beside the caller's
// own extensions, leaves the caller's capabilities as they were, and,
// for a caller that declares no extension, is made without an
// allocation (it lives in the call's caller, and copies no map).
func TestCallerEnvelopeOfAHandshakeEraCaller(t *testing.T) {
	type seen struct {
		ext       map[string]json.RawMessage
		callerExt int
		allocs    float64
	}
	got := make(chan seen, 1)
	srv := sake.MustNew(nil)
	if err := srv.AddTool(sake.NewTool("look", func(c *sake.Context) (string, error) {
		var env client.Forward
		callerEnvelope(&env, c, nil)
		allocs := testing.AllocsPerRun(100, func() { callerEnvelope(&env, c, nil) })
		got <- seen{ext: env.Capabilities.Extensions, callerExt: len(c.ClientCapabilities().Extensions), allocs: allocs}
		return "", nil
	})); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		ext     map[string]json.RawMessage
		allocs  float64
		wantExt int
	}{
		{"no extension", nil, 0, 1},
		{"an extension of its own", map[string]json.RawMessage{"x.example/ext": json.RawMessage(`{"a":1}`)}, -1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := saketest.Connect(t, srv, saketest.Legacy(), saketest.Capabilities(protocol.ClientCapabilities{Extensions: tc.ext}))
			if _, err := c.CallTool("look", nil); err != nil {
				t.Fatal(err)
			}
			s := <-got
			if string(s.ext[protocol.TaskExtension]) != "{}" || len(s.ext) != tc.wantExt {
				t.Errorf("the envelope declares %v", s.ext)
			}
			if tc.ext != nil && string(s.ext["x.example/ext"]) != `{"a":1}` {
				t.Errorf("the caller's own extension is lost: %v", s.ext)
			}
			if s.callerExt != len(tc.ext) {
				t.Errorf("the caller's capabilities now have %d extensions, want %d", s.callerExt, len(tc.ext))
			}
			if tc.allocs >= 0 && s.allocs > tc.allocs {
				t.Errorf("the envelope took %v allocations, want %v", s.allocs, tc.allocs)
			}
		})
	}
}
