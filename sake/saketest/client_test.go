package saketest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// Through Handler without the server, AwaitTask is the client's own: it
// listens for the task's notifications (or polls), and what its
// subscription receives is not taken for the server's notifications.
func TestAwaitTaskThroughHandlerWithoutTheServer(t *testing.T) {
	t.Parallel()
	srv, _, e := taskServer(t)
	h := plug.New(srv)
	t.Cleanup(h.Close)
	c := saketest.Connect(t, nil, saketest.Handler(h, "/mcp"))
	if c.Server() != nil {
		t.Fatal("a client through Handler without the server has one")
	}
	_, task, err := c.CallToolAsync("export", nil)
	if err != nil || task == nil {
		t.Fatalf("async call = %+v, %v", task, err)
	}
	close(e.release)
	done, err := c.AwaitTask(task.ID, 10*time.Second)
	if err != nil || done.Status != sake.TaskCompleted || done.Result.Text() != "exported" {
		t.Fatalf("awaited = %+v, %v", done, err)
	}
	for _, n := range c.Notifications() {
		if strings.Contains(string(n.Params), "subscriptionId") || strings.HasPrefix(n.Method, "notifications/subscriptions/") {
			t.Errorf("the client's own subscription was recorded: %s %s", n.Method, n.Params)
		}
	}
	if _, err := c.AwaitTask("no-such-task", time.Second); err == nil {
		t.Error("an unknown task was awaited")
	}
}

// Send carries a hand-made message through the HTTP stack as well, with
// the session and its headers; the server's answer comes back as it is.
func TestSendThroughTheHTTPStack(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(Greeter{})
		h := plug.New(srv)
		t.Cleanup(h.Close)
		c := saketest.Connect(t, srv, era, saketest.Handler(h, "/mcp"))
		params := map[string]any{"name": "greet", "arguments": map[string]any{"name": "Rui"}}
		if c.Session().Era == sake.EraModern {
			params["_meta"] = modernMeta(map[string]any{})
		}
		reply := c.Send(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "tools/call", "params": params}))
		var r struct {
			ID     string          `json:"id"`
			Result sake.ToolResult `json:"result"`
		}
		if err := json.Unmarshal(reply.Body, &r); err != nil || r.ID != "s1" || r.Result.Text() != "Hello, Rui!" || reply.Method != "tools/call" {
			t.Fatalf("send = %s (%s), %v", reply.Body, reply.Method, err)
		}
		params["name"] = "nope"
		reply = c.Send(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}))
		var bad struct {
			Error *sake.Error `json:"error"`
		}
		if err := json.Unmarshal(reply.Body, &bad); err != nil || bad.Error == nil || bad.Error.Code != sake.CodeInvalidParams ||
			reply.ErrorCode != sake.CodeInvalidParams {
			t.Fatalf("unknown tool = %s, %v", reply.Body, err)
		}
	})
}

// A refusal by the host's stack itself is a *saketest.HTTPError with its
// status and body; the client underneath does not leak through.
func TestHandlerRefusalIsAnHTTPError(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(Greeter{})
	h := plug.New(srv)
	t.Cleanup(h.Close)
	var gate atomic.Bool
	stack := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate.Load() {
			http.Error(w, "closed for today", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
	c := saketest.Connect(t, srv, saketest.Handler(stack, "/mcp"))
	gate.Store(true)
	_, err := c.CallTool("greet", map[string]any{"name": "Rui"})
	var he *saketest.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable || !strings.Contains(he.Body, "closed for today") {
		t.Fatalf("refused call = %#v", err)
	}
	c.Close()
	if _, err := c.ListTools(); !errors.Is(err, saketest.ErrClosed) {
		t.Fatalf("a call after Close = %v, want ErrClosed", err)
	}
}

// Every call of the test client goes through the same client, which
// sends a progress token on each request: progress is recorded in both
// eras, in memory and through the HTTP stack alike.
func TestProgressRecordedOnEveryPath(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, era saketest.Option) {
		srv := sake.MustNew(reporter{})
		h := plug.New(srv)
		t.Cleanup(h.Close)
		for name, c := range map[string]*saketest.Client{
			"memory": saketest.Connect(t, srv, era),
			"http":   saketest.Connect(t, srv, era, saketest.Handler(h, "/mcp")),
		} {
			if _, err := c.CallTool("work", nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			saketest.AssertNotification(t, c, "notifications/progress", map[string]any{"progress": 3, "total": 3})
			trace := strings.Join(c.Trace(), "\n")
			if !strings.Contains(trace, `-> {"jsonrpc":"2.0","id":`) || !strings.Contains(trace, "<- ") {
				t.Errorf("%s: trace = %s", name, trace)
			}
		}
	})
}
