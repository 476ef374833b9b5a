package proxy_test

import (
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestRenameAndLeaveOut: Rename serves a remote tool and prompt under
// another name, calls reaching the remote name; a name the proxy's
// server refuses is left out and reported with LeaveOut, and the rest is
// served.
func TestRenameAndLeaveOut(t *testing.T) {
	remote := sake.MustNew(nil, sake.Name("remote", "1.0.0"))
	if err := remote.AddTool(
		sake.NewTool("report.v2", func(*sake.Context) (string, error) { return "report", nil }),
		sake.NewTool("drop", func(*sake.Context) (string, error) { return "drop", nil }),
	); err != nil {
		t.Fatal(err)
	}
	if err := remote.AddPrompt(sake.NewPrompt("greet.v1", func(*sake.Context, map[string]string) (*sake.PromptResult, error) {
		return &sake.PromptResult{Messages: []sake.PromptMessage{sake.UserMessage(sake.Text("hi"))}}, nil
	})); err != nil {
		t.Fatal(err)
	}
	cl, err := client.Connect(t.Context(), memory.Transport(remote))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var left []string
	srv, err := proxy.New(t.Context(), cl,
		proxy.Rename(func(kind, name string) string {
			if name == "drop" {
				return "no such name!" // refused by the server
			}
			return kind + "_" + strings.ReplaceAll(name, ".", "_")
		}),
		proxy.LeaveOut(func(kind, name string, err error) {
			if err == nil {
				t.Error("LeaveOut without a reason")
			}
			left = append(left, kind+" "+name)
		}))
	if err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, srv)
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "tool_report_v2" {
		t.Fatalf("tools = %+v", tools)
	}
	if res, err := c.CallTool("tool_report_v2", nil); err != nil || res.Text() != "report" {
		t.Fatalf("tool_report_v2 = %v, %v", res, err)
	}
	if _, err := c.GetPrompt("prompt_greet_v1", nil); err != nil {
		t.Fatalf("prompt_greet_v1: %v", err)
	}
	if len(left) != 1 || left[0] != "tool drop" {
		t.Errorf("left out %q", left)
	}

	// Without LeaveOut, the refused name is New's error.
	_, err = proxy.New(t.Context(), cl, proxy.Rename(func(_, name string) string { return name + " !" }))
	if err == nil || !strings.Contains(err.Error(), "proxying tool") {
		t.Fatalf("New without LeaveOut = %v", err)
	}
}
