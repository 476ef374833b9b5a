package sake_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/transport"
)

// escalating runs in the request, reporting on its stream, then becomes a
// task when asked to.
type escalating struct{}

func (e *escalating) Declare(d *sake.Declarations) {
	d.Tool("Grow").Description("Reports, then maybe becomes a task.").Task(sake.TaskOptional).TaskStartedByCode()
	d.Tool("Hidden").Description("A task tool the legacy list does not show as one.").Task(sake.TaskOptional).TaskUnadvertised()
	d.Tool("Shown").Description("A task tool.").Task(sake.TaskRequired)
}

type growArgs struct {
	Task bool `json:"task"`
}

func (e *escalating) Grow(ctx *sake.Context, a growArgs) (string, error) {
	ctx.Progress(1, 2, "before")
	ctx.Log(sake.LevelInfo, "grow", "in the request")
	if a.Task {
		if err := ctx.StartTask(); err != nil {
			return "", err
		}
		ctx.Log(sake.LevelInfo, "grow", "in the task")
	}
	return "grown", nil
}

func (e *escalating) Hidden(*sake.Context) (string, error) { return "hidden", nil }
func (e *escalating) Shown(*sake.Context) (string, error)  { return "shown", nil }

// TestEscalatingToolStreamsUntilItIsATask: a TaskStartedByCode tool's
// progress and log messages reach the request's stream while it answers
// in the request, and stop when it becomes a task.
func TestEscalatingToolStreamsUntilItIsATask(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(&escalating{}, sake.Tasks(tasks.New()))
	for _, asTask := range []bool{false, true} {
		var mu sync.Mutex
		var sent []string
		in := &sake.Inbound{Stream: transport.StreamFunc(func(msg []byte) {
			mu.Lock()
			sent = append(sent, string(msg))
			mu.Unlock()
		})}
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grow","arguments":{"task":` + map[bool]string{false: "false", true: "true"}[asTask] +
			`},"_meta":{"progressToken":"pt","io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		_, m := rpc(t, s, msg, in)
		res, _ := m["result"].(map[string]any)
		if want := map[bool]string{false: "complete", true: "task"}[asTask]; res == nil || res["resultType"] != want {
			t.Fatalf("task=%v: reply %v, want resultType %s", asTask, m, want)
		}
		mu.Lock()
		got := strings.Join(sent, "\n")
		mu.Unlock()
		if !strings.Contains(got, `"progressToken":"pt"`) || !strings.Contains(got, `"data":"in the request"`) {
			t.Errorf("task=%v: the stream got %s, want the progress and log of the request", asTask, got)
		}
		if strings.Contains(got, "in the task") {
			t.Errorf("task=%v: a message of the task went on the request's stream: %s", asTask, got)
		}
	}
}

// TestTaskUnadvertised: the legacy tools/list shows task support only for
// the tools that advertise it.
func TestTaskUnadvertised(t *testing.T) {
	t.Parallel()
	s := sake.MustNew(&escalating{}, sake.Tasks(tasks.New()))
	r, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, &sake.Inbound{})
	if m["result"] == nil || r.Session == nil {
		t.Fatalf("initialize: %v", m)
	}
	in := &sake.Inbound{Session: r.Session}
	rpc(t, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, in)
	_, m = rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, in)
	b, _ := json.Marshal(m["result"])
	var l struct {
		Tools []struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &l); err != nil || len(l.Tools) != 3 {
		t.Fatalf("tools/list = %s, %v", b, err)
	}
	for _, tool := range l.Tools {
		listed := len(tool.Execution) > 0
		if want := tool.Name != "hidden"; listed != want {
			t.Errorf("%s: execution listed = %v (%s), want %v", tool.Name, listed, tool.Execution, want)
		}
	}
}

// parked is a task tool that waits until released.
type parked struct{ release chan struct{} }

func (p *parked) Declare(d *sake.Declarations) {
	d.Tool("Wait").Description("Waits until released.").Task(sake.TaskRequired)
}

func (p *parked) Wait(ctx *sake.Context) (string, error) {
	select {
	case <-p.release:
		return "released", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// legacySession opens a 2025-11-25 session whose stream is sent.
func legacySession(t *testing.T, s *sake.Server, sent chan<- string) *sake.Inbound {
	t.Helper()
	r, m := rpc(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, &sake.Inbound{})
	if m["result"] == nil || r.Session == nil {
		t.Fatalf("initialize: %v", m)
	}
	transport.SetSender(r.Session, func(msg []byte) error { sent <- string(msg); return nil })
	in := &sake.Inbound{Session: r.Session}
	rpc(t, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, in)
	return in
}

// TestLegacyTaskStatusNotifications: a 2025-11-25 session that started a
// task hears of its changes on its stream; another session does not.
func TestLegacyTaskStatusNotifications(t *testing.T) {
	t.Parallel()
	p := &parked{release: make(chan struct{})}
	s := sake.MustNew(p, sake.Tasks(tasks.New()))
	mine, theirs := make(chan string, 16), make(chan string, 16)
	in := legacySession(t, s, mine)
	legacySession(t, s, theirs)
	_, m := rpc(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","task":{}}}`, in)
	res, _ := m["result"].(map[string]any)
	task, _ := res["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call = %v, want a task", m)
	}
	close(p.release)
	for msg := range mine {
		var n struct {
			Method string `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
				TTL    *int64 `json:"ttl"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(msg), &n); err != nil || n.Method != "notifications/tasks/status" || n.Params.TaskID != id {
			t.Fatalf("the session got %s", msg)
		}
		if n.Params.Status == sake.TaskCompleted {
			break
		}
	}
	// The other session's stream got nothing before a list change sent to
	// every session.
	s.NotifyListChanged(sake.ListTools)
	if other := <-theirs; !strings.Contains(other, "notifications/tools/list_changed") {
		t.Errorf("another session heard of the task: %s", other)
	}
}
