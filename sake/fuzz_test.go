package sake_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// FuzzHandle feeds arbitrary bytes to the dispatcher, in both eras and
// with HTTP headers: it must never panic, and every reply must be one
// valid JSON-RPC message.
func FuzzHandle(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_note","arguments":{"id":"2","text":"x"},` + modernMeta + `}}`,
		`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://1","requestState":"x.y","inputResponses":{"k":1},` + modernMeta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"notes://{id}"},"argument":{"name":"id","value":"1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"summarize","arguments":{"style":5}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"x":[1,2,{}]}}`,
		`[{"jsonrpc":"2.0"}]`, `{`, `"x"`, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"AAAA"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"explode","_meta":{"progressToken":[1]}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	srv := sake.MustNew(newNotes(), sake.Logger(nil))
	init := srv.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{},"roots":{}}}}`), nil)
	f.Fuzz(func(t *testing.T, msg []byte, legacy bool) {
		in := &sake.Inbound{Stream: transport.StreamFunc(func([]byte) {}), OnPanic: func(any, []byte) {}}
		if legacy {
			in.Session = init.Session
		} else {
			in.Headers = &sake.Headers{ProtocolVersion: "2026-07-28", Method: "tools/call", HasMethod: true, Name: "add_note", HasName: true}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // nothing may block: asks to the client fail at once
		r := srv.Handle(ctx, msg, in)
		if r.Body != nil && !json.Valid(r.Body) {
			t.Fatalf("reply is not JSON: %s", r.Body)
		}
	})
}
