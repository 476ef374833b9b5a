package sake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// rpc sends one raw message and decodes the reply.
func rpc(t *testing.T, s *sake.Server, msg string, in *sake.Inbound) (sake.Reply, map[string]any) {
	t.Helper()
	r := s.Handle(context.Background(), []byte(msg), in)
	if r.Body == nil {
		return r, nil
	}
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("reply is not JSON: %s", r.Body)
	}
	return r, m
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func TestJSONRPCEdgeCases(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	cases := []struct {
		name, msg string
		code      int
		id        string // JSON of the id expected in the reply
	}{
		{"not JSON", `{"jsonrpc":`, sake.CodeParseError, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, sake.CodeInvalidRequest, "null"},
		{"not an object", `"hello"`, sake.CodeInvalidRequest, "null"},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, sake.CodeInvalidRequest, "1"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, sake.CodeInvalidRequest, "1"},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, sake.CodeInvalidRequest, "1"},
		{"no method", `{"jsonrpc":"2.0","id":1}`, sake.CodeInvalidRequest, "1"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, sake.CodeInvalidRequest, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, sake.CodeInvalidRequest, "null"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, sake.CodeInvalidRequest, "null"},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":5,` + modernMeta + `}}`, sake.CodeInvalidParams, `"p"`},
		{"params an array", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}`, sake.CodeInvalidParams, "3"},
		{"id too long", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", protocol.MaxIDBytes) + `","method":"ping"}`, sake.CodeInvalidRequest, "null"},
		{"numeric id too long", `{"jsonrpc":"2.0","id":1` + strings.Repeat("0", protocol.MaxIDBytes) + `,"method":"ping"}`, sake.CodeInvalidRequest, "null"},
		{"progress token too long", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"progressToken":"` + strings.Repeat("p", protocol.MaxIDBytes) + `","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, sake.CodeInvalidParams, "4"},
		{"id at the limit", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", protocol.MaxIDBytes-2) + `","method":"ping"}`, 0, `"` + strings.Repeat("i", protocol.MaxIDBytes-2) + `"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, m := rpc(t, s, tc.msg, nil)
			if errCode(m) != tc.code || r.ErrorCode != tc.code {
				t.Fatalf("reply %s, want code %d", r.Body, tc.code)
			}
			id, _ := json.Marshal(m["id"])
			if string(id) != tc.id {
				t.Errorf("id = %s, want %s", id, tc.id)
			}
		})
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	for _, id := range []string{`1`, `-7`, `0`, `1.5`, `12345678901234567890`, `"abc"`, `""`, `"ü \"q\""`, `1e3`} {
		r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`), nil)
		if !strings.HasPrefix(string(r.Body), `{"jsonrpc":"2.0","id":`+id+`,`) {
			t.Errorf("id %s echoed as %s", id, r.Body)
		}
	}
}

func TestNotificationsAndResponsesGetNoReply(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"explode"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}`,
	} {
		if r := s.Handle(context.Background(), []byte(msg), nil); r.Body != nil {
			t.Errorf("%s got a reply: %s", msg, r.Body)
		}
	}
}

func TestModernValidation(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	hdr := func(v, method, name string) *sake.Headers {
		return &sake.Headers{ProtocolVersion: v, Method: method, HasMethod: method != "", Name: name, HasName: name != ""}
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_notes",` + modernMeta + `}}`
	cases := []struct {
		name string
		msg  string
		h    *sake.Headers
		code int
		in   string // substring of the message or data
	}{
		{"no _meta", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, hdr("2026-07-28", "server/discover", ""), sake.CodeInvalidParams, "protocolVersion"},
		{"no protocolVersion", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, nil, sake.CodeInvalidParams, "protocolVersion"},
		{"no capabilities", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil, sake.CodeInvalidParams, "clientCapabilities"},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}}}`, hdr("v999", "server/discover", ""), sake.CodeUnsupportedProtocolVersion, `"requested":"v999"`},
		{"header missing", call, &sake.Headers{Method: "tools/call", HasMethod: true, Name: "list_notes", HasName: true}, sake.CodeHeaderMismatch, "MCP-Protocol-Version"},
		{"header and body differ", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}}}`, hdr("2026-07-28", "server/discover", ""), sake.CodeHeaderMismatch, "does not match"},
		{"Mcp-Method missing", call, hdr("2026-07-28", "", "list_notes"), sake.CodeHeaderMismatch, "Mcp-Method"},
		{"Mcp-Method differs in case", call, hdr("2026-07-28", "TOOLS/CALL", "list_notes"), sake.CodeHeaderMismatch, "Mcp-Method"},
		{"Mcp-Name missing", call, hdr("2026-07-28", "tools/call", ""), sake.CodeHeaderMismatch, "Mcp-Name"},
		{"Mcp-Name differs", call, hdr("2026-07-28", "tools/call", "add_note"), sake.CodeHeaderMismatch, "'add_note'"},
		{"bad base64", call, hdr("2026-07-28", "tools/call", "=?base64?!!!?="), sake.CodeHeaderMismatch, "Mcp-Name"},
		{"bad log level", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}`, nil, sake.CodeInvalidParams, "logLevel"},
	}
	for _, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method", "tasks/result"} {
		cases = append(cases, struct {
			name string
			msg  string
			h    *sake.Headers
			code int
			in   string
		}{"removed " + m, `{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":{"uri":"notes://readme",` + modernMeta + `}}`, nil, sake.CodeMethodNotFound, m})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, m := rpc(t, s, tc.msg, &sake.Inbound{Headers: tc.h})
			if errCode(m) != tc.code {
				t.Fatalf("reply %s, want code %d", r.Body, tc.code)
			}
			if !strings.Contains(string(r.Body), tc.in) {
				t.Errorf("reply %s does not mention %q", r.Body, tc.in)
			}
			if r.Era != sake.EraModern {
				t.Errorf("era = %v", r.Era)
			}
			if id, _ := json.Marshal(m["id"]); string(id) != "1" {
				t.Errorf("id not echoed: %s", r.Body)
			}
		})
	}
}

func TestModernHeadersAccepted(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	msg := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://1",` + modernMeta + `}}`
	for _, name := range []string{"notes://1", "  notes://1\t", "=?base64?bm90ZXM6Ly8x?="} {
		h := &sake.Headers{ProtocolVersion: " 2026-07-28", Method: "resources/read ", HasMethod: true, Name: name, HasName: true}
		r, m := rpc(t, s, msg, &sake.Inbound{Headers: h})
		if m["result"] == nil {
			t.Errorf("Mcp-Name %q: %s", name, r.Body)
		}
	}
}

func TestModernResultShape(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes(), sake.Name("notes", "1.2.3"))
	cacheable := map[string]string{
		"server/discover":          ``,
		"tools/list":               ``,
		"resources/list":           ``,
		"resources/templates/list": ``,
		"prompts/list":             ``,
		"resources/read":           `"uri":"notes://readme",`,
	}
	plain := map[string]string{
		"tools/call":          `"name":"list_notes",`,
		"prompts/get":         `"name":"summarize","arguments":{"style":"short"},`,
		"completion/complete": `"ref":{"type":"ref/prompt","name":"summarize"},"argument":{"name":"style","value":"s"},`,
	}
	check := func(method, params string, cache bool) {
		r, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+params+modernMeta+`}}`, nil)
		res, ok := m["result"].(map[string]any)
		if !ok {
			t.Fatalf("%s: %s", method, r.Body)
		}
		if res["resultType"] != "complete" {
			t.Errorf("%s: resultType = %v", method, res["resultType"])
		}
		_, hasTTL := res["ttlMs"]
		_, hasScope := res["cacheScope"]
		if hasTTL != cache || hasScope != cache {
			t.Errorf("%s: ttlMs/cacheScope present = %v/%v, want %v", method, hasTTL, hasScope, cache)
		}
		info := res["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
		if info["name"] != "notes" || info["version"] != "1.2.3" {
			t.Errorf("%s: serverInfo = %v", method, info)
		}
	}
	for m, p := range cacheable {
		check(m, p, true)
	}
	for m, p := range plain {
		check(m, p, false)
	}
	_, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, nil)
	res := m["result"].(map[string]any)
	if v := res["supportedVersions"].([]any); v[0] != "2026-07-28" || len(v) != 5 {
		t.Errorf("supportedVersions = %v", v)
	}
	caps := res["capabilities"].(map[string]any)
	for _, k := range []string{"tools", "resources", "prompts", "completions", "logging"} {
		if caps[k] == nil {
			t.Errorf("capability %s missing: %v", k, caps)
		}
	}
}

func TestCapabilityGating(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(&onlyTools{})
	for _, m := range []string{"prompts/list", "resources/list", "resources/read", "completion/complete"} {
		_, resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{`+modernMeta+`}}`, nil)
		if errCode(resp) != sake.CodeMethodNotFound {
			t.Errorf("%s on a tools-only server: %v", m, resp)
		}
	}
	_, resp := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`, nil)
	caps := resp["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["prompts"] != nil || caps["resources"] != nil || caps["tools"] == nil {
		t.Errorf("capabilities = %v", caps)
	}
}

type onlyTools struct{}

func (onlyTools) Hello(ctx context.Context) (string, error) { return "hi", nil }

func TestLegacyNegotiation(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	for req, want := range map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26",
		"2024-11-05": "2024-11-05", "2026-07-28": "2025-11-25", "1999-01-01": "2025-11-25",
	} {
		r, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+req+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
		res := m["result"].(map[string]any)
		if res["protocolVersion"] != want {
			t.Errorf("asked %s, got %v", req, res["protocolVersion"])
		}
		if res["resultType"] != nil {
			t.Errorf("a legacy result carries resultType: %s", r.Body)
		}
		if r.Session == nil || r.Session.ProtocolVersion() != want {
			t.Fatalf("no session for %s", req)
		}
		for _, c := range r.Session.ID() {
			if c < 0x21 || c > 0x7e {
				t.Errorf("session id %q is not visible ASCII", r.Session.ID())
			}
		}
		r.Session.Close()
	}
	_, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`, nil)
	if errCode(m) != sake.CodeInvalidParams {
		t.Errorf("initialize without a version: %v", m)
	}
}

func TestLegacySession(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	r, _ := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, nil)
	sess := r.Session
	in := &sake.Inbound{Session: sess}
	rpc(t, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, in)
	if !sess.Initialized() {
		t.Error("notifications/initialized not recorded")
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, in); m["result"] == nil {
		t.Errorf("ping: %v", m)
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}`, in); m["result"] == nil || sess.LogLevel() != sake.LevelWarning {
		t.Errorf("setLevel: %v, level %q", m, sess.LogLevel())
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}`, in); errCode(m) != sake.CodeInvalidParams || sess.LogLevel() != sake.LevelWarning {
		t.Errorf("bad setLevel: %v, level %q", m, sess.LogLevel())
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"notes://1"}}`, in); m["result"] == nil || !sess.Subscribed("notes://1") {
		t.Errorf("subscribe: %v", m)
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"notes://1"}}`, in); m["result"] == nil || sess.Subscribed("notes://1") {
		t.Errorf("unsubscribe: %v", m)
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`, in); errCode(m) != sake.CodeMethodNotFound {
		t.Errorf("server/discover without _meta in a session: %v", m)
	}
	if _, m := rpc(t, s, `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"notes://404"}}`, in); errCode(m) != sake.CodeResourceNotFound {
		t.Errorf("legacy not found: %v", m)
	}
	r, m := rpc(t, s, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, &sake.Inbound{SessionNotFound: true})
	if errCode(m) != sake.CodeInvalidRequest || !r.SessionNotFound {
		t.Errorf("unknown session: %s", r.Body)
	}
	// A modern request ignores a stale session id.
	r, m = rpc(t, s, `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{`+modernMeta+`}}`, &sake.Inbound{SessionNotFound: true})
	if m["result"] == nil || r.SessionNotFound {
		t.Errorf("modern with stale session: %s", r.Body)
	}
}

func TestTraceContextReachesMiddleware(t *testing.T) {
	t.Parallel()
	var got [3]string
	trace := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if m := req.Params.Meta; m != nil {
				got = [3]string{m.TraceParent, m.TraceState, m.Baggage}
			}
			return next(ctx, req)
		}
	}
	s := sake.MustNew(newNotes(), sake.Use(trace))
	_, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"k=v","baggage":"user=ana","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, nil)
	if m["result"] == nil || got[0] != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" || got[1] != "k=v" || got[2] != "user=ana" {
		t.Errorf("trace context = %q (%v)", got, m)
	}
}
