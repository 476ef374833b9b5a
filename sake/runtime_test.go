package sake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/transport"
)

func manyTools(t *testing.T, n int, opts ...sake.Option) *sake.Server {
	t.Helper()
	s := sake.MustNew(nil, opts...)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("tool_%02d", i)
		if err := s.AddTool(sake.NewTool(name, func(ctx *sake.Context) (string, error) { return name, nil })); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestPagination(t *testing.T) {
	t.Parallel()
	s := manyTools(t, 5, sake.WithLimits(sake.Limits{PageSize: 2}), sake.Secret([]byte("k")))
	c := connect(t, s)
	var seen []string
	cursor := ""
	pages := 0
	for {
		p, err := c.ListToolsPage(cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tl := range p.Items {
			seen = append(seen, tl.Name)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if pages != 3 || strings.Join(seen, ",") != "tool_00,tool_01,tool_02,tool_03,tool_04" {
		t.Fatalf("%d pages: %v", pages, seen)
	}
	all, err := c.ListTools()
	if err != nil || len(all) != 5 {
		t.Fatalf("ListTools followed %d, %v", len(all), err)
	}

	first, _ := c.ListToolsPage("")
	good := first.NextCursor
	tampered := []string{
		flipLast(good),
		"x" + good,
		"not base64!",
		"",
	}
	// A cursor minted by a server with another secret.
	other := manyTools(t, 5, sake.WithLimits(sake.Limits{PageSize: 2}), sake.Secret([]byte("other key")))
	op, _ := connect(t, other).ListToolsPage("")
	tampered = append(tampered, op.NextCursor)
	for _, cur := range tampered {
		if cur == "" {
			continue // the empty cursor is the first page
		}
		_, err := c.ListToolsPage(cur)
		var e *sake.Error
		if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || e.Message != "Invalid cursor" {
			t.Errorf("cursor %q: %v", cur, err)
		}
	}
	// A tools/list cursor is not a prompts/list cursor.
	if err := s.AddPrompt(sake.NewPrompt("p", func(ctx *sake.Context) (string, error) { return "", nil })); err != nil {
		t.Fatal(err)
	}
	_, err = c.Request("prompts/list", map[string]any{"cursor": good})
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Errorf("cross-list cursor: %v", err)
	}
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	var seen []string
	audit := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			seen = append(seen, req.Era.String()+" "+req.Method+" "+req.Params.Name)
			return next(ctx, req)
		}
	}
	deny := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			if req.Method == "tools/call" && req.Params.Name == "explode" {
				return nil, &sake.Error{Code: -31001, Message: "denied by policy"}
			}
			return next(ctx, req)
		}
	}
	rewrite := func(next sake.Handler) sake.Handler {
		return func(ctx context.Context, req *sake.Request) (any, error) {
			res, err := next(ctx, req)
			if tr, ok := res.(*sake.ToolResult); ok {
				tr.Content = append(tr.Content, sake.Text("audited"))
			}
			return res, err
		}
	}
	c := saketest.Connect(t, newNotes(), saketest.ServerOptions(sake.Use(audit, deny, rewrite)))
	_, err := c.CallTool("explode", nil)
	var e *sake.Error
	if !errors.As(err, &e) || e.Code != -31001 {
		t.Fatalf("short-circuit: %v", err)
	}
	res, err := c.CallTool("add_note", map[string]any{"id": "9", "text": "x"})
	if err != nil || res.Text() != "added 9\naudited" {
		t.Fatalf("rewrite: %v %v", res, err)
	}
	if got := strings.Join(seen, "|"); got != "modern server/discover |modern tools/call explode|modern tools/call add_note" {
		t.Errorf("middleware saw %q", got)
	}
}

func TestAddAndRemoveAtRunTime(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		s := sake.MustNew(newNotes())
		events := make(chan sake.Broadcast, 8)
		stop := s.Watch(func(b sake.Broadcast) { events <- b })
		defer stop()
		c := saketest.Connect(t, s, era)
		type echoArgs struct {
			Text string `json:"text"`
		}
		if err := s.AddTool(sake.NewTool("echo", func(ctx *sake.Context, a echoArgs) (string, error) { return a.Text, nil }).
			Description("Echoes.")); err != nil {
			t.Fatal(err)
		}
		if b := <-events; b.List != sake.ListTools {
			t.Errorf("broadcast = %+v", b)
		}
		res, err := c.CallTool("echo", map[string]any{"text": "hi"})
		if err != nil || res.Text() != "hi" {
			t.Fatalf("echo = %v, %v", res, err)
		}
		if !s.RemoveTool("echo") || s.RemoveTool("echo") {
			t.Error("RemoveTool reported wrongly")
		}
		<-events
		var e *sake.Error
		if _, err := c.CallTool("echo", map[string]any{"text": "hi"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
			t.Errorf("removed tool still answers: %v", err)
		}
		if err := s.AddResource(sake.NewResource("mem://x", func(ctx *sake.Context) ([]byte, error) { return []byte{7}, nil })); err != nil {
			t.Fatal(err)
		}
		got, err := c.ReadResource("mem://x")
		if err != nil || string(got[0].Blob) != "\x07" || got[0].MIMEType != "application/octet-stream" {
			t.Fatalf("added resource = %+v, %v", got, err)
		}
		if !s.RemoveResource("mem://x") {
			t.Error("RemoveResource")
		}
		if err := s.AddTool(sake.NewTool("bad name!", func(ctx *sake.Context) error { return nil })); err == nil {
			t.Error("AddTool accepted a bad name")
		}
		if err := s.AddTool(sake.NewTool("nofn", 42)); err == nil {
			t.Error("AddTool accepted a non-function")
		}
	})
}

func TestProgressAndLogNotifications(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		quiet := saketest.Connect(t, newNotes(), era)
		if _, err := quiet.CallTool("report", nil); err != nil {
			t.Fatal(err)
		}
		var methods []string
		for _, n := range quiet.Notifications() {
			methods = append(methods, n.Method)
		}
		if got := strings.Join(methods, ","); got != "notifications/progress,notifications/progress" {
			t.Errorf("without a log level: %s", got)
		}
		var p struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Progress      float64         `json:"progress"`
			Total         float64         `json:"total"`
			Message       string          `json:"message"`
		}
		_ = json.Unmarshal(quiet.Notifications()[0].Params, &p)
		if p.Progress != 1 || p.Total != 2 || p.Message != "half" || string(p.ProgressToken) == "" {
			t.Errorf("progress = %+v", p)
		}

		loud := saketest.Connect(t, newNotes(), era, saketest.LogLevel(sake.LevelInfo))
		if _, err := loud.CallTool("report", nil); err != nil {
			t.Fatal(err)
		}
		var logs []string
		for _, n := range loud.Notifications() {
			if n.Method == "notifications/message" {
				logs = append(logs, string(n.Params))
			}
		}
		if len(logs) != 1 || !strings.Contains(logs[0], `"level":"info"`) || !strings.Contains(logs[0], `"data":"reported"`) {
			t.Errorf("logs at info = %v", logs)
		}
	})
}

func TestListenStream(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	msgs := make(chan string, 8)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan sake.Reply)
	go func() {
		done <- s.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["notes://1"]},`+modernMeta+`}}`),
			&sake.Inbound{Stream: transport.StreamFunc(func(m []byte) { msgs <- string(m) })})
	}()
	ack := <-msgs
	if !strings.Contains(ack, `"method":"notifications/subscriptions/acknowledged"`) || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":"L"`) {
		t.Fatalf("ack = %s", ack)
	}
	s.NotifyListChanged(sake.ListPrompts) // not asked for
	s.ResourceUpdated("notes://1")
	if m := <-msgs; !strings.Contains(m, `"notifications/resources/updated"`) || !strings.Contains(m, `subscriptionId":"L"`) {
		t.Fatalf("update = %s", m)
	}
	if err := s.AddTool(sake.NewTool("x", func(ctx *sake.Context) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if m := <-msgs; m != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}` {
		t.Fatalf("list changed = %s", m)
	}
	cancel()
	// The client went away: the reply is an error the transport drops.
	if r := <-done; r.ErrorCode != sake.CodeInternalError || !strings.Contains(string(r.Body), "Request cancelled") {
		t.Errorf("reply after the client left: %s", r.Body)
	}

	// Shutdown ends a stream with a result.
	go func() {
		done <- s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{},`+modernMeta+`}}`),
			&sake.Inbound{Stream: transport.StreamFunc(func(m []byte) { msgs <- string(m) })})
	}()
	<-msgs
	_ = s.Shutdown(context.Background())
	r := <-done
	if !strings.Contains(string(r.Body), `"result":{"resultType":"complete","_meta":{`) || !strings.Contains(string(r.Body), `"io.modelcontextprotocol/subscriptionId":7`) {
		t.Errorf("final result = %s", r.Body)
	}
}

func TestLegacyBroadcastsReachSessions(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(newNotes())
	r := s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`), nil)
	sess := r.Session
	got := make(chan string, 4)
	transport.SetSender(sess, func(m []byte) error { got <- string(m); return nil })
	s.NotifyListChanged(sake.ListTools) // not initialized yet: nothing
	s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), &sake.Inbound{Session: sess})
	s.ResourceUpdated("notes://1") // not subscribed: nothing
	s.NotifyListChanged(sake.ListPrompts)
	if m := <-got; m != `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}` {
		t.Fatalf("got %s", m)
	}
	s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"notes://1"}}`), &sake.Inbound{Session: sess})
	s.ResourceUpdated("notes://1")
	if m := <-got; m != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"notes://1"}}` {
		t.Fatalf("got %s", m)
	}
	sess.Close()
	s.NotifyListChanged(sake.ListTools)
	select {
	case m := <-got:
		t.Errorf("a closed session got %s", m)
	default:
	}
}

// flipLast changes the last character of a cursor to another base64url
// character.
func flipLast(s string) string {
	last := s[len(s)-1]
	repl := byte('A')
	if last == 'A' {
		repl = 'B'
	}
	return s[:len(s)-1] + string(repl)
}
