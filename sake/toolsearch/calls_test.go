package toolsearch_test

import (
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/toolsearch"
)

type sureForm struct {
	Sure bool `json:"sure"`
}

// TestCallToolAsksTheCaller checks a tool reached through call_tool asks
// the user as it does when called directly: a server-initiated request in
// the legacy era, an input_required round in the modern one.
func TestCallToolAsksTheCaller(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		s, err := toolsearch.New(toolsearch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := sake.MustNew(nil, sake.Use(s.Middleware()))
		err = srv.AddTool(sake.NewTool("wipe", func(ctx *sake.Context, _ struct{}) (string, error) {
			var f sureForm
			action, err := ctx.Elicit("sure", "Wipe everything?", &f)
			if err != nil {
				return "", err
			}
			if action != sake.Accept || !f.Sure {
				return "kept", nil
			}
			return "wiped", nil
		}).Description("Erases every record."))
		if err != nil {
			t.Fatal(err)
		}
		c := saketest.Connect(t, srv, append(opts, saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
			return saketest.Accept(map[string]any{"sure": true})
		}))...)
		res, err := c.CallTool("call_tool", map[string]any{"name": "wipe"})
		if err != nil || res.Text() != "wiped" {
			t.Fatalf("call_tool wipe = %v, %v", res, err)
		}
		if len(c.Asked()) != 1 {
			t.Errorf("asked %d times, want once", len(c.Asked()))
		}
	})
}

// TestCallToolRunsATask checks a tool that must run as a task becomes
// one through call_tool, owned by the caller.
func TestCallToolRunsATask(t *testing.T) {
	t.Parallel()
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(t.Context()) })
	s, err := toolsearch.New(toolsearch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := sake.MustNew(nil, sake.Use(s.Middleware()), sake.Tasks(m))
	release := make(chan struct{})
	err = srv.AddTool(sake.NewTool("export", func(ctx *sake.Context, _ struct{}) (string, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "exported", nil
	}).Description("Exports every record to a file.").Task(sake.TaskRequired))
	if err != nil {
		t.Fatal(err)
	}
	ann := saketest.Connect(t, srv, saketest.Scopes(), saketest.Subject("ann"))
	bob := saketest.Connect(t, srv, saketest.Scopes(), saketest.Subject("bob"))
	_, task, err := ann.CallToolAsync("call_tool", map[string]any{"name": "export"})
	if err != nil || task == nil {
		t.Fatalf("call_tool export = %v, %v", task, err)
	}
	if _, err := bob.GetTask(task.ID); err == nil {
		t.Fatal("another caller read the task")
	}
	close(release)
	if res, err := ann.TaskResult(task.ID); err != nil || res.Text() != "exported" {
		t.Fatalf("result = %v, %v", res, err)
	}
}
