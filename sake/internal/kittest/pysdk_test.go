package kittest

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// The wire's refusals are JSON-RPC as sake/protocol spells it, with the
// empty-string data the Python SDK sends.
func TestPyErrorIsProtocolEnvelope(t *testing.T) {
	t.Parallel()
	got := string(PyError(json.RawMessage(`7`), protocol.CodeMethodNotFound, `Method <x> not found`))
	want, _ := protocol.AppendError(nil, []byte(`7`), &protocol.Error{Code: protocol.CodeMethodNotFound, Message: `Method <x> not found`, Data: ""})
	if got != string(want) {
		t.Fatalf("PyError = %s\nwant      %s", got, want)
	}
	if got := string(PyError(nil, protocol.CodeInvalidParams, "m")); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"m","data":""}}` {
		t.Fatalf("without an id: %s", got)
	}
}
