package saketest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

type taskSampler struct{}

func (taskSampler) Declare(d *sake.Declarations) { d.Tool("Capital").Task(sake.TaskRequired) }

func (taskSampler) Capital(ctx *sake.Context) (string, error) {
	res, err := ctx.Sample("capital", sake.SamplingRequest{
		Messages:  []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("Capital of France?")}},
		MaxTokens: 5,
	})
	if err != nil {
		return "", err
	}
	return "the model said " + res.Text(), nil
}

// A *sake.SamplingResult given to UpdateTask is the client's answer, with
// its content: the task finishes with it instead of asking again.
func TestUpdateTaskTakesASamplingResult(t *testing.T) {
	t.Parallel()
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	c := saketest.Connect(t, sake.MustNew(taskSampler{}, sake.Tasks(m)), saketest.SamplingText("unused"))
	_, task, err := c.CallToolAsync("capital", nil)
	if err != nil || task == nil {
		t.Fatalf("async call = %+v, %v", task, err)
	}
	got, err := c.AwaitTask(task.ID, 10*time.Second)
	if err != nil || got.Status != sake.TaskInputRequired {
		t.Fatalf("awaiting the question: %+v, %v", got, err)
	}
	answer := &sake.SamplingResult{Role: sake.RoleAssistant, Content: sake.Text("Paris"), Model: "m", StopReason: "endTurn"}
	if err := c.UpdateTask(task.ID, map[string]any{"capital": answer}); err != nil {
		t.Fatal(err)
	}
	var first string
	for k := range got.InputRequests {
		first = k
	}
	// Until the task ends, or asks anew: a question other than the one
	// answered means the answer was lost.
	done, err := c.AwaitTask(task.ID, 10*time.Second)
	for err == nil && !done.Terminal() && done.InputRequests[first] != nil {
		done, err = c.AwaitTask(task.ID, 10*time.Second)
	}
	if err != nil || done.Status != sake.TaskCompleted || done.Result.Text() != "the model said Paris" {
		t.Fatalf("after the answer: %+v, %v; want the task completed with the answer's text", done, err)
	}
}

type unanswered struct{}

func (unanswered) Elicits(ctx *sake.Context) (string, error) {
	var f struct {
		OK bool `json:"ok"`
	}
	_, err := ctx.Elicit("q", "Go on?", &f)
	return "answered", err
}

func (unanswered) Samples(ctx *sake.Context) (string, error) {
	_, err := ctx.Sample("q", sake.SamplingRequest{Messages: []sake.SamplingMessage{{Role: sake.RoleUser, Content: sake.Text("Hi")}}, MaxTokens: 5})
	return "answered", err
}

func (unanswered) Lists(ctx *sake.Context) (string, error) {
	_, err := ctx.ListRoots("q")
	return "answered", err
}

// A client that declares a capability without the option that answers it
// gets an error naming that option, in both eras.
func TestDeclaredCapabilityWithoutHandlerNamesTheOption(t *testing.T) {
	t.Parallel()
	caps := protocol.ClientCapabilities{
		Elicitation: &protocol.ElicitationCapability{},
		Sampling:    &protocol.SamplingCapability{},
		Roots:       &protocol.RootsCapability{},
	}
	both(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, unanswered{}, era, saketest.Capabilities(caps))
		for tool, option := range map[string]string{"elicits": "saketest.OnInput", "samples": "saketest.Sampling", "lists": "saketest.Roots"} {
			res, err := c.CallTool(tool, nil)
			got := fmt.Sprint(err)
			if res != nil {
				got += " " + res.Text()
			}
			if !strings.Contains(got, option) {
				t.Errorf("%s without its handler: %s; want the error to name %s", tool, got, option)
			}
			if want := fmt.Sprint(sake.CodeMethodNotFound); !strings.Contains(got, want) {
				t.Errorf("%s without its handler: %s; want the client's answer to be %s", tool, got, want)
			}
		}
	})
}
