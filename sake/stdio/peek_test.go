package stdio

import (
	"bytes"
	"encoding/json"
	"testing"
)

var peekCases = []struct {
	msg       string
	kind      msgKind
	id        string
	requestID string
	stream    bool
}{
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"s":"}\"{["}}}`, kindRequest, `1`, ``, false},
	{` { "method" : "ping" , "id" : "a\"b" } `, kindRequest, `"a\"b"`, ``, false},
	{`{"jsonrpc":"2.0","id":-1.5e3,"method":"x"}`, kindRequest, `-1.5e3`, ``, false},
	{`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen"}`, kindRequest, `7`, ``, true},
	{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, kindInitialize, ``, ``, false},
	{`{"jsonrpc":"2.0","method":"initialize"}`, kindInitialize, ``, ``, false},
	{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1","reason":"x"}}`, kindCancel, ``, `"r1"`, false},
	{`{"params":{"reason":"x","RequestID":12},"method":"notifications/cancelled"}`, kindCancel, ``, `12`, false},
	{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"\u0072equestId":3}}`, kindCancel, ``, `3`, false},
	{`{"jsonrpc":"2.0","method":"notifications/cancelled"}`, kindCancel, ``, ``, false},
	{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`, kindCancel, ``, ``, false},
	{`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{"requestId":1}}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","id":1,"result":{}}`, kindResponse, `1`, ``, false},
	{`{"jsonrpc":"2.0","id":"sake-1","error":{"code":1,"message":"no"}}`, kindResponse, `"sake-1"`, ``, false},
	{`{"jsonrpc":"2.0","id":"x","Result":null,"method":null}`, kindResponse, `"x"`, ``, false},
	{`{"jsonrpc":"2.0","id":1}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","result":{}}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","id":1,"method":null}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","id":1,"method":5}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, kindInline, ``, ``, false},
	{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, kindInline, ``, ``, false},
	{`{"ID":3,"Method":"ping"}`, kindRequest, `3`, ``, false},
	{`{"id":1,"method":"ping","id":2}`, kindRequest, `2`, ``, false},
	{`{"id":1,"method":"ping","id":null}`, kindInline, ``, ``, false},
	{`{"id":1,"m\u0065thod":"initialize"}`, kindInitialize, ``, ``, false},
	{`{"id":1,"method":"initializ\u0065"}`, kindInitialize, ``, ``, false},
	{`{"id":1,"method":"ping"`, kindInline, ``, ``, false},
	{`{"id":1,"method":"ping"} x`, kindInline, ``, ``, false},
	{`not json`, kindInline, ``, ``, false},
	{`[{"id":1,"method":"ping"}]`, kindInline, ``, ``, false},
	{``, kindInline, ``, ``, false},
	{`{}`, kindInline, ``, ``, false},
}

func TestPeek(t *testing.T) {
	for _, tc := range peekCases {
		for name, p := range map[string]peeked{"fast": peek([]byte(tc.msg)), "slow": peekSlow([]byte(tc.msg))} {
			if p.kind != tc.kind || string(p.id) != tc.id || string(p.requestID) != tc.requestID || p.stream != tc.stream {
				t.Errorf("%s %s = %+v (id %s, requestId %s), want kind %d id %q requestId %q",
					name, tc.msg, p, p.id, p.requestID, tc.kind, tc.id, tc.requestID)
			}
		}
	}
}

func TestPeekAllocates(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`)
	if n := testing.AllocsPerRun(100, func() { peek(msg) }); n != 0 {
		t.Errorf("peek allocates %v times", n)
	}
}

// FuzzPeek checks that the scanner reads valid JSON as encoding/json does.
func FuzzPeek(f *testing.F) {
	for _, tc := range peekCases {
		f.Add([]byte(tc.msg))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		fast := peek(msg) // must not panic on anything
		if !json.Valid(msg) {
			return
		}
		slow := peekSlow(msg)
		if fast.kind != slow.kind || !bytes.Equal(fast.id, slow.id) || !bytes.Equal(fast.requestID, slow.requestID) || fast.stream != slow.stream {
			t.Errorf("%q: fast %+v, slow %+v", msg, fast, slow)
		}
	})
}
