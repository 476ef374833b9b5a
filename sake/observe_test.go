package sake_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/transport"
)

// recorder is a set of hooks that writes down what it sees.
type recorder struct {
	mu     sync.Mutex
	events []string
	tasks  chan sake.TaskDone
}

type ctxKey struct{}

func (r *recorder) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.events
	r.events = nil
	return e
}

func (r *recorder) hooks() sake.Hooks {
	return sake.Hooks{
		Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
			r.add("start " + req.Method + " " + req.Transport())
			return context.WithValue(ctx, ctxKey{}, req.Method), func(d sake.RequestDone) {
				e := "done " + req.Method + " " + req.ProtocolVersion
				if d.Error != nil {
					e += " error " + d.Error.Message
				}
				if d.ToolError {
					e += " tool_error"
				}
				if d.ResultType != "" {
					e += " " + d.ResultType
				}
				r.add(e)
			}
		},
		Panic: func(ctx context.Context, recovered any, _ []byte) {
			r.add("panic in " + ctx.Value(ctxKey{}).(string))
		},
		Input: func(ctx context.Context, q sake.Question) func(error) {
			r.add("ask " + q.Method + " " + q.Key + " id=" + q.RequestID)
			return func(err error) {
				if err != nil {
					r.add("asked " + err.Error())
				} else {
					r.add("asked")
				}
			}
		},
		Task: func(reqCtx, workCtx context.Context, t *backend.Task) (context.Context, func(sake.TaskDone)) {
			r.add("task " + t.Tool + " from " + reqCtx.Value(ctxKey{}).(string))
			return context.WithValue(workCtx, ctxKey{}, "task"), func(d sake.TaskDone) { r.tasks <- d }
		},
		Session: func(ctx context.Context, req *sake.Request, s *sake.Session) func() {
			r.add("session open " + s.ProtocolVersion() + " from " + ctx.Value(ctxKey{}).(string))
			return func() { r.add("session closed") }
		},
	}
}

type asker struct{}

type nameForm struct {
	Name string `json:"name"`
}

func (asker) Declare(d *sake.Declarations) { d.Tool("Slow").Task(sake.TaskRequired) }

func (asker) Greet(ctx *sake.Context) (string, error) {
	var f nameForm
	if _, err := ctx.Elicit("who", "Your name?", &f); err != nil {
		return "", err
	}
	return "hello " + f.Name, nil
}

func (asker) Slow(ctx *sake.Context) (string, error) {
	if v, _ := ctx.Value(ctxKey{}).(string); v != "task" {
		return "", sake.InvalidParams("the task does not run with the hook's context")
	}
	return "slow done", nil
}

func (asker) Boom(ctx *sake.Context) (string, error) { panic("boom") }

func TestHooksSeeRequestsPanicsSessionsAndQuestions(t *testing.T) {
	t.Parallel()
	rec := &recorder{tasks: make(chan sake.TaskDone, 1)}
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	s := sake.MustNew(asker{}, sake.Observe(rec.hooks()), sake.Tasks(m))
	elicit := `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`
	modern := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + elicit + `}`

	// A modern call that asks, then the retry with the answer.
	r, body := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",`+modern+`}}`, &sake.Inbound{Transport: "memory"})
	if r.ErrorCode != 0 {
		t.Fatalf("greet: %s", r.Body)
	}
	state := body["result"].(map[string]any)["requestState"].(string)
	want := []string{"start tools/call memory", "ask elicitation/create who id=", "asked", "done tools/call 2026-07-28 input_required"}
	if got := rec.take(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("input round:\n got %q\nwant %q", got, want)
	}
	rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","requestState":"`+state+`","inputResponses":{"who":{"action":"accept","content":{"name":"Ann"}}},`+modern+`}}`, nil)
	want = []string{"start tools/call ", "done tools/call 2026-07-28"}
	if got := rec.take(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("answered round:\n got %q\nwant %q", got, want)
	}

	// A panic is seen with the request's context, and the call is a tool error.
	rpc(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"boom",`+modern+`}}`, nil)
	want = []string{"start tools/call ", "panic in tools/call", "done tools/call 2026-07-28 tool_error"}
	if got := rec.take(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("panic:\n got %q\nwant %q", got, want)
	}

	// A request refused before it is handled is seen with its error.
	rpc(t, s, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"greet","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil)
	if got := rec.take(); len(got) != 2 || !strings.Contains(got[1], "error Invalid params") {
		t.Errorf("refused request: %q", got)
	}

	// A task runs with the hook's context and reports how it ended.
	taskMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	rpc(t, s, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow",`+taskMeta+`}}`, nil)
	if d := <-rec.tasks; d.Status != sake.TaskCompleted || d.ToolError || d.Error != nil {
		t.Errorf("task done = %+v", d)
	}
	want = []string{"start tools/call ", "task slow from tools/call", "done tools/call 2026-07-28 task"}
	if got := rec.take(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("task:\n got %q\nwant %q", got, want)
	}

	// A legacy session: opened, asked through, notified, closed once.
	r, _ = rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}`, nil)
	sess := r.Session
	if sess == nil {
		t.Fatal("no session")
	}
	sent := make(chan []byte, 1)
	in := &sake.Inbound{Session: sess, Stream: transport.StreamFunc(func(m []byte) { sent <- m }), Transport: "stdio"}
	rpc(t, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, in)
	done := make(chan sake.Reply)
	go func() {
		done <- s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"greet"}}`), in)
	}()
	var out struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(<-sent, &out); err != nil {
		t.Fatal(err)
	}
	s.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":`+string(out.ID)+`,"result":{"action":"accept","content":{"name":"Bo"}}}`), in)
	if r := <-done; !strings.Contains(string(r.Body), "hello Bo") {
		t.Fatalf("legacy greet: %s", r.Body)
	}
	sess.Close()
	sess.Close()
	want = []string{"start initialize ", "session open 2025-11-25 from initialize", "done initialize 2025-11-25",
		"start notifications/initialized stdio", "done notifications/initialized ",
		"start tools/call stdio", "ask elicitation/create who id=" + string(out.ID), "asked", "done tools/call 2025-11-25",
		"session closed"}
	if got := rec.take(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("legacy:\n got %q\nwant %q", got, want)
	}
}

func TestObserveTwiceCallsBoth(t *testing.T) {
	t.Parallel()
	a, b := &recorder{}, &recorder{}
	s := sake.MustNew(asker{}, sake.Observe(a.hooks()), sake.Observe(b.hooks()))
	r, _ := rpc(t, s, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, nil)
	r.Session.Close()
	for _, rec := range []*recorder{a, b} {
		if got := rec.take(); len(got) != 4 || got[3] != "session closed" {
			t.Errorf("events = %q", got)
		}
	}
}
