package sake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

func TestBatchesOnlyIn20250326(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	session := func(version string) *sake.Session {
		r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{}}}`), nil)
		t.Cleanup(r.Session.Close)
		return r.Session
	}
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"list_notes"}},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`)

	r := s.Handle(context.Background(), batch, &sake.Inbound{Session: session("2025-03-26")})
	var replies []struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *sake.Error     `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &replies); err != nil || len(replies) != 3 {
		t.Fatalf("2025-03-26 batch: %s", r.Body)
	}
	if string(replies[0].ID) != "1" || string(replies[1].ID) != `"b"` || replies[1].Result == nil {
		t.Errorf("replies = %s", r.Body)
	}
	if replies[2].Error == nil || replies[2].Error.Code != sake.CodeInvalidRequest {
		t.Errorf("initialize in a batch: %s", r.Body)
	}
	if r := s.Handle(context.Background(), []byte(`[]`), &sake.Inbound{Session: session("2025-03-26")}); r.ErrorCode != sake.CodeInvalidRequest {
		t.Errorf("empty batch: %s", r.Body)
	}
	if r := s.Handle(context.Background(), []byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`), &sake.Inbound{Session: session("2025-03-26")}); r.Body != nil {
		t.Errorf("a batch of notifications gets no body: %s", r.Body)
	}
	for _, v := range []string{"2025-06-18", "2025-11-25", "2024-11-05"} {
		if r := s.Handle(context.Background(), batch, &sake.Inbound{Session: session(v)}); r.ErrorCode != sake.CodeInvalidRequest {
			t.Errorf("%s accepted a batch: %s", v, r.Body)
		}
	}
	if r := s.Handle(context.Background(), batch, nil); r.ErrorCode != sake.CodeInvalidRequest {
		t.Errorf("a batch without a session: %s", r.Body)
	}
}

// A batch element that is itself an array is one invalid request: the
// answer is a flat array of error objects, never a nested array, and the
// nested content is not looked into (a deep nesting costs one element).
func TestNestedBatchIsInvalidRequest(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	in := &sake.Inbound{Headers: &sake.Headers{ProtocolVersion: "2025-03-26"}}
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	deep := strings.Repeat("[", 1500) + strings.Repeat(ping+",", 200) + ping + strings.Repeat("]", 1500)
	for name, body := range map[string]string{
		"one level":   `[[` + ping + `],` + ping + `]`,
		"1500 levels": `[` + deep + `,` + ping + `]`,
	} {
		r := s.Handle(context.Background(), []byte(body), in)
		var replies []struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *sake.Error     `json:"error"`
		}
		if err := json.Unmarshal(r.Body, &replies); err != nil || len(replies) != 2 {
			t.Fatalf("%s: want two replies, a flat array of objects: %s", name, r.Body)
		}
		if replies[0].Error == nil || replies[0].Error.Code != sake.CodeInvalidRequest || string(replies[0].ID) != "null" {
			t.Errorf("%s: the array element: %s", name, r.Body)
		}
		if string(replies[1].ID) != "1" || replies[1].Result == nil {
			t.Errorf("%s: the ping next to it: %s", name, r.Body)
		}
	}
	// A top-level nesting of arrays is one batch whose single element is an
	// array: one error, however deep.
	r := s.Handle(context.Background(), []byte(deep), in)
	if strings.Count(string(r.Body), `"code":-32600`) != 1 || r.Body[0] != '[' || r.Body[1] != '{' {
		t.Errorf("deep nesting: %.300s", r.Body)
	}
}
