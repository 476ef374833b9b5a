package client

import "testing"

// An answer is taken as the response to the request it answers, by its id
// wherever it is, and anything else is refused, whether or not it starts
// the way this library's servers write an answer.
func TestCheckAnswer(t *testing.T) {
	t.Parallel()
	m := &message{id: 1, method: "tools/call"}
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, true},
		{`{"result":{},"jsonrpc":"2.0","id":1}`, true},
		{`{"jsonrpc":"2.0","id":"1","result":{}}`, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":10,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":2,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"roots/list","result":{}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{},"method":"roots/list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"method":"x"}}}`, true},
		{`{"jsonrpc":"2.0","result":{}}`, false},
	} {
		if err := checkAnswer([]byte(c.body), m); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", c.body, err, c.ok)
		}
	}
}
