package stdio_test

import (
	"encoding/json"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func TestModernToolsCall(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(call(1, "echo", `{"text":"hello"}`, ""))
	m := c.recvID(1)
	if got := m.text(t); got != "hello" {
		t.Errorf("text = %q, want hello", got)
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if r.ResultType != "complete" {
		t.Errorf("a modern result needs resultType: %s", m.raw)
	}
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("after EOF: %v, extra output %v", err, rest)
	}
}

func TestLegacySession(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(initialize)
	m := c.recvID("init")
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(m.Result, &init); err != nil || init.ProtocolVersion != protocol.LegacyVersion {
		t.Fatalf("initialize: %s", m.raw)
	}
	c.send(initialized, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m = c.recvID(2)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		ResultType *string `json:"resultType"`
	}
	if err := json.Unmarshal(m.Result, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 4 || list.ResultType != nil {
		t.Errorf("tools/list in the session: %s", m.raw)
	}
	c.send(legacyCall(3, "echo", `{"text":"in session"}`))
	if got := c.recvID(3).text(t); got != "in session" {
		t.Errorf("text = %q", got)
	}
	// A modern request is still served statelessly next to the session.
	c.send(call(4, "echo", `{"text":"modern"}`, ""))
	if got := c.recvID(4).text(t); got != "modern" {
		t.Errorf("text = %q", got)
	}
}

func TestNotificationsAndResponsesGetNoOutput(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(
		initialized, // no session yet: ignored
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{`+modernMeta+`}}}`,
		cancelled(99),                          // unknown id: ignored
		`{"jsonrpc":"2.0","id":5,"result":{}}`, // a response from the client
		"", "   ", "\t\r",                      // blank lines are skipped
		call(7, "echo", `{"text":"after"}`, ""),
	)
	if got := c.recvID(7).text(t); got != "after" {
		t.Errorf("text = %q", got)
	}
}

func TestConcurrentRequests(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.send(call(2, "echo", `{"text":"meanwhile"}`, ""))
	if got := c.recvID(2).text(t); got != "meanwhile" {
		t.Errorf("text = %q", got)
	}
	close(tl.block)
	if got := c.recvID(1).text(t); got != "done" {
		t.Errorf("text = %q", got)
	}
}

func TestMaxConcurrent(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl), stdio.MaxConcurrent(1))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.send(call(2, "echo", `{"text":"queued"}`, ""))
	close(tl.block)
	// The echo could start only once wait had finished.
	c.recvID(1)
	c.recvID(2)
}

func TestProgressBeforeResult(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(call(1, "count", "", `"progressToken":"tok"`))
	for _, want := range []float64{1, 2} {
		m := c.recv()
		var p struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if m.Method != "notifications/progress" || p.ProgressToken != "tok" || p.Progress != want {
			t.Fatalf("want progress %v, got %s", want, m.raw)
		}
	}
	if got := c.recvID(1).text(t); got != "counted" {
		t.Errorf("text = %q", got)
	}
}

func TestIdentity(t *testing.T) {
	c := start(t, newServer(t, newTools()), stdio.Identity(&sake.Identity{Subject: "host-user"}))
	c.send(call(1, "who", "", ""))
	if got := c.recvID(1).text(t); got != "host-user" {
		t.Errorf("identity = %q", got)
	}
}
