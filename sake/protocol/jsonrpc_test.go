package protocol_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestAppendedMessagesAreJSONRPC(t *testing.T) {
	t.Parallel()
	errMsg, err := protocol.AppendError(nil, []byte(`"a"`), &protocol.Error{Code: protocol.CodeInvalidParams, Message: "bad \"x\"", Data: map[string]any{"k": 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		msg  []byte
		want string
	}{
		{"request", protocol.AppendRequest(nil, []byte("7"), "tools/call", []byte(`{"name":"x"}`)), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`},
		{"request without params", protocol.AppendRequest(nil, []byte("7"), "ping", nil), `{"jsonrpc":"2.0","id":7,"method":"ping"}`},
		{"notification", protocol.AppendNotification(nil, "notifications/progress", []byte(`{"progress":1}`)), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{"notification without params", protocol.AppendNotification(nil, "notifications/initialized", nil), `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"result", protocol.AppendResult(nil, []byte(`"r1"`), []byte(`{}`)), `{"jsonrpc":"2.0","id":"r1","result":{}}`},
		{"result with no id", protocol.AppendResult(nil, nil, []byte(`{}`)), `{"jsonrpc":"2.0","id":null,"result":{}}`},
		{"error", errMsg, `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad \"x\"","data":{"k":1}}}`},
		{"error body", protocol.ErrorBody(protocol.CodeParseError, "Parse error"), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"method escaped", protocol.AppendNotification(nil, "a\"b", nil), `{"jsonrpc":"2.0","method":"a\"b"}`},
	} {
		if string(c.msg) != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.msg, c.want)
		}
		if !json.Valid(c.msg) {
			t.Errorf("%s: not JSON: %s", c.name, c.msg)
		}
	}
}

func TestAppendErrorWithDataThatIsNotJSON(t *testing.T) {
	t.Parallel()
	msg, err := protocol.AppendError(nil, []byte("1"), &protocol.Error{Code: protocol.CodeInternalError, Message: "m", Data: func() {}})
	if err == nil {
		t.Fatal("no error for data that cannot be encoded")
	}
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","data":null}}`; string(msg) != want {
		t.Fatalf("%s, want %s", msg, want)
	}
}

func TestPeek(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		msg    string
		kind   protocol.Kind
		id     string
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, protocol.KindRequest, "1", "ping"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, protocol.KindNotification, "", "notifications/initialized"},
		{`{"jsonrpc":"2.0","id":"x","result":{}}`, protocol.KindResponse, `"x"`, ""},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`, protocol.KindResponse, `"x"`, ""},
		{`{"jsonrpc":"2.0","method":null,"id":2,"result":1}`, protocol.KindResponse, "2", ""},
		{`{"jsonrpc":"2.0"}`, protocol.KindInvalid, "", ""},
	} {
		env, err := protocol.Peek([]byte(c.msg))
		if err != nil {
			t.Errorf("%s: %v", c.msg, err)
			continue
		}
		if env.Kind() != c.kind || string(env.ID) != c.id || env.Method != c.method {
			t.Errorf("%s: kind %d id %s method %q", c.msg, env.Kind(), env.ID, env.Method)
		}
	}
}

// A message that is not a JSON object, or whose method is not a string,
// is refused: nothing is found in it.
func TestPeekRefusesWhatIsNotAnEnvelope(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{``, `{`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `"x"`, `{"method":1}`, `{"method":"a" "id":1}`, `{"id":1,"method":"\ud800x` + "\x00" + `"}`} {
		env, err := protocol.Peek([]byte(msg))
		if err == nil {
			t.Errorf("%q: no error", msg)
		}
		if env.Kind() != protocol.KindInvalid && err == nil {
			t.Errorf("%q: kind %d", msg, env.Kind())
		}
	}
}

func TestServerBusyUnwrapsToItsCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("store down")
	e := protocol.ServerBusy("busy", cause)
	if e.Code != protocol.CodeServerBusy || !errors.Is(e, cause) {
		t.Fatalf("%v: code %d, cause %v", e, e.Code, e.Unwrap())
	}
	b, _ := json.Marshal(e)
	if string(b) != `{"code":-32000,"message":"busy"}` {
		t.Fatalf("the cause reached the wire: %s", b)
	}
}

func TestErrorResultFromKeepsTheCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk full")
	r := protocol.ErrorResultFrom(cause)
	if !r.IsError || r.Text() != "disk full" || r.Cause() != cause {
		t.Fatalf("%v (cause %v)", r, r.Cause())
	}
}

func ExampleAppendRequest() {
	msg := protocol.AppendRequest(nil, []byte("1"), "tools/call", []byte(`{"name":"greet"}`))
	env, _ := protocol.Peek(msg)
	fmt.Println(string(msg))
	fmt.Println(env.Kind() == protocol.KindRequest, string(env.ID), env.Method, string(env.Params))
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}
	// true 1 tools/call {"name":"greet"}
}
