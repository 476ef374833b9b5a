package pgreplica_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
)

// Every replica runs the same code, so it serves the same versions: a
// 2025-11-25 session opened on one replica asks another for a version, and
// a 2026-07-28 client asks any of them.
func TestVersionsAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := start(t, 2)
	for _, r := range rs {
		for _, v := range []string{"1.0", "2.0"} {
			def := sake.NewTool("quote", func(*sake.Context) (string, error) { return "quote " + v, nil }).Version(v)
			if err := r.srv.AddTool(def); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := rs[0].url, rs[1].url
	sid := initialize(t, a, "alice")
	if resp := post(t, b, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized on B: %d", resp.StatusCode)
	}
	call := func(version string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"` + sake.MetaComponentVersion + `":"` + version + `"},"name":"quote"}}`
	}
	if got := resultText(t, events(post(t, b, "alice", sid, call("1.0")))); got != "quote 1.0" {
		t.Errorf("quote 1.0 on B = %q", got)
	}
	if got := resultText(t, events(post(t, a, "alice", sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quote"}}`))); got != "quote 2.0" {
		t.Errorf("quote on A = %q", got)
	}
	for m := range events(post(t, b, "alice", sid, call("3.0"))) {
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(sake.CodeInvalidParams) || !strings.Contains(e["message"].(string), "the versions served are 2.0, 1.0") {
			body, _ := json.Marshal(m)
			t.Errorf("quote 3.0 on B = %s, want -32602 naming 2.0, 1.0", body)
		}
	}

	for i, url := range []string{a, b} {
		cl, err := client.Connect(t.Context(), client.HTTP(url, nil))
		if err != nil {
			t.Fatal(err)
		}
		res, err := cl.CallTool(client.WithVersion(t.Context(), "1.0"), "quote", nil)
		if err != nil || res.Text() != "quote 1.0" {
			t.Errorf("modern quote 1.0 on replica %d = %v, %v", i, res, err)
		}
		_, err = cl.CallTool(client.WithVersion(t.Context(), "0.9"), "quote", nil)
		if pe := new(sake.Error); !errors.As(err, &pe) || pe.Code != sake.CodeInvalidParams {
			t.Errorf("modern quote 0.9 on replica %d = %v, want -32602", i, err)
		}
		cl.Close()
	}
}
