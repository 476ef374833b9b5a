package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// answering are handlers that answer every question of the kit's Ask.
var answering = []client.Option{
	client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
		return client.Accept(map[string]any{"name": "Ana"}), nil
	}),
	client.OnSample(func(context.Context, *protocol.SamplingRequest) (*protocol.SamplingResult, error) {
		return &protocol.SamplingResult{Content: protocol.Text("hello"), Model: "m"}, nil
	}),
	client.Roots(protocol.Root{URI: "file:///w"}),
}

func TestOnMessageAndOnQuestionSeeTheConversation(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		var mu sync.Mutex
		var sent, received []string
		var asked []string
		opts = append(append(opts, answering...),
			client.OnMessage(func(out bool, msg []byte) {
				mu.Lock()
				defer mu.Unlock()
				if out {
					sent = append(sent, string(msg))
				} else {
					received = append(received, string(msg))
				}
			}),
			client.OnQuestion(func(method string, params json.RawMessage) {
				if !json.Valid(params) {
					t.Errorf("%s params are not JSON: %s", method, params)
				}
				mu.Lock()
				asked = append(asked, method)
				mu.Unlock()
			}))
		c := connect(t, tr, srv, opts...)
		res, err := c.CallTool(t.Context(), "ask", nil)
		if err != nil || res.Text() != "accept Ana / hello / file:///w" {
			t.Fatalf("ask = %v, %v", res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if got := strings.Join(asked, " "); got != "elicitation/create sampling/createMessage roots/list" {
			t.Errorf("questions seen = %q", got)
		}
		if !containsWith(sent, `"method":"tools/call"`) || !containsWith(received, "accept Ana") {
			t.Errorf("messages: sent %q, received %q", sent, received)
		}
		if era == protocol.EraLegacy && (!containsWith(sent, `"method":"initialize"`) || !containsWith(received, `"method":"elicitation/create"`) ||
			!containsWith(sent, `"result":{"action":"accept"`)) {
			t.Errorf("a session's questions and answers are not all seen: sent %q, received %q", sent, received)
		}
	})
}

func containsWith(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

func TestDeclaredCapabilitiesWinOverTheHandlers(t *testing.T) {
	for _, e := range eras {
		t.Run(e.Name, func(t *testing.T) {
			srv, _ := newKitServer(t)
			var mu sync.Mutex
			var first string
			form := &protocol.ElicitationCapability{Form: json.RawMessage(`{}`)}
			opts := append(append([]client.Option{}, e.Opts...), answering...)
			opts = append(opts, client.Capabilities(protocol.ClientCapabilities{Elicitation: form}),
				client.OnMessage(func(out bool, msg []byte) {
					mu.Lock()
					if out && first == "" {
						first = string(msg)
					}
					mu.Unlock()
				}))
			connect(t, transports[0], srv, opts...)
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(first, `"elicitation":{"form":{}}`) || !strings.Contains(first, `"sampling":{}`) || !strings.Contains(first, `"roots":{}`) {
				t.Errorf("first message = %s", first)
			}
		})
	}
}

func TestSessionIDIsReported(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		sid := c.Info().SessionID
		switch {
		case era == protocol.EraModern && sid != "":
			t.Errorf("a 2026-07-28 client has session %q", sid)
		case era == protocol.EraLegacy && tr.Name != "stdio" && sid == "":
			t.Errorf("no session id")
		case tr.Name == "stdio" && sid != "":
			t.Errorf("stdio has session %q", sid)
		}
	})
}

func TestRawSendsTheMessageAsItIs(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		c := connect(t, tr, srv, opts...)
		meta := ""
		if era == protocol.EraModern {
			meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + protocol.ModernVersion + `","io.modelcontextprotocol/clientCapabilities":{}},`
		}
		call := []byte(`{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{` + meta + `"name":"echo","arguments":{"text":"raw"}}}`)
		body, err := c.Raw(t.Context(), call)
		if tr.Name == "stdio" {
			if err == nil {
				t.Fatalf("Raw over stdio answered %s", body)
			}
			return
		}
		if err != nil || !strings.Contains(string(body), `"id":"r1"`) || !strings.Contains(string(body), `raw`) {
			t.Fatalf("raw call = %s, %v", body, err)
		}
		bad := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `"name":"nope"}}`)
		body, err = c.Raw(t.Context(), bad)
		var r struct {
			ID    int             `json:"id"`
			Error *protocol.Error `json:"error"`
		}
		if err != nil || json.Unmarshal(body, &r) != nil || r.ID != 7 || r.Error == nil || r.Error.Code != protocol.CodeInvalidParams {
			t.Fatalf("bad params = %s, %v", body, err)
		}
		if a, err := c.Exchange(t.Context(), bad); err != nil || a.Method != "tools/call" || a.ErrorCode != protocol.CodeInvalidParams {
			t.Fatalf("Exchange of bad params = %+v, %v", a, err)
		}
		if a, err := c.Exchange(t.Context(), call); err != nil || a.Method != "tools/call" || a.ErrorCode != 0 || !strings.Contains(string(a.Body), "raw") {
			t.Fatalf("Exchange of a call = %+v, %v", a, err)
		}
		body, err = c.Raw(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`))
		if err != nil || body != nil {
			t.Fatalf("notification = %s, %v", body, err)
		}
		if res, err := c.CallTool(t.Context(), "echo", map[string]string{"text": "after"}); err != nil || res.Text() != "after" {
			t.Fatalf("a call after Raw = %v, %v", res, err)
		}
		_ = c.Close()
		if _, err := c.Raw(t.Context(), call); err != client.ErrClosed {
			t.Fatalf("Raw after Close = %v", err)
		}
	})
}

func TestTaskResultFinishesAStartedTask(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		opts = append(opts, client.OnElicit(func(context.Context, *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			return client.Accept(map[string]any{"ok": true}), nil
		}))
		c := connect(t, tr, srv, opts...)
		_, task, err := c.StartTool(t.Context(), "confirm", nil)
		if err != nil || task == nil {
			t.Fatalf("start = %+v, %v", task, err)
		}
		res, err := c.TaskResult(t.Context(), task.ID)
		if err != nil || res.Text() != "accept confirmed" {
			t.Fatalf("task result = %v, %v", res, err)
		}
		if _, err := c.TaskResult(t.Context(), "no-such-task"); err == nil {
			t.Fatal("an unknown task has a result")
		}
	})
}

func TestClientWideProgressAndPerCallProgress(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		var mu sync.Mutex
		var wide []client.Progress
		opts = append(opts, client.OnProgress(func(p client.Progress) {
			mu.Lock()
			wide = append(wide, p)
			mu.Unlock()
		}))
		c := connect(t, tr, srv, opts...)
		if _, err := c.CallTool(t.Context(), "report", nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(wide) != 2 || wide[0].Progress != 1 || wide[1].Message != "done" {
			t.Errorf("client-wide progress = %+v", wide)
		}
		wide = nil
		mu.Unlock()
		var own []client.Progress
		ctx := client.WithProgress(t.Context(), func(p client.Progress) { own = append(own, p) })
		if _, err := c.CallTool(ctx, "report", nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(own) != 2 || len(wide) != 0 {
			t.Errorf("a call's own handler got %d, the client-wide one %d", len(own), len(wide))
		}
	})
}

// ObserveNotifications sees every notification, those delivered to a
// call's progress handler included, before they are delivered.
func TestObserveNotificationsSeesProgressToo(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		var mu sync.Mutex
		var observed []string
		delivered := 0
		opts = append(opts, client.ObserveNotifications(func(n protocol.Notification) {
			mu.Lock()
			defer mu.Unlock()
			observed = append(observed, n.Method)
			if n.Method == "notifications/progress" && count(observed, n.Method) != delivered+1 {
				t.Errorf("progress %d observed after %d deliveries: not before its own", count(observed, n.Method), delivered)
			}
		}))
		c := connect(t, tr, srv, opts...)
		ctx := client.WithProgress(t.Context(), func(client.Progress) {
			mu.Lock()
			delivered++
			mu.Unlock()
		})
		if _, err := c.CallTool(ctx, "report", nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if progress := count(observed, "notifications/progress"); progress != 2 || delivered != 2 {
			t.Fatalf("observed %v (%d progress), delivered %d progress", observed, progress, delivered)
		}
	})
}

// count returns how many times s occurs in list.
func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}
