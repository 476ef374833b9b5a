package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// The tools of the tasks extension's conformance scenarios.

// declareTasks describes the task tools; Declare calls it.
func (e *Everything) declareTasks(d *sake.Declarations) {
	d.Tool("Greet").Description("Greets someone by name (answers at once).")
	d.Tool("SlowCompute").Description("Computes for the given number of seconds, as a task when the client can take one.").
		Task(sake.TaskOptional).TaskTiming(10*time.Minute, 200*time.Millisecond)
	d.Tool("FailingJob").Description("A task that ends with a tool error.").
		Task(sake.TaskRequired).TaskTiming(10*time.Minute, 200*time.Millisecond)
	d.Tool("ProtocolErrorJob").Description("A task whose code fails unexpectedly.").
		Task(sake.TaskOptional).TaskTiming(10*time.Minute, 200*time.Millisecond)
	d.Tool("ConfirmDelete").Description("A task that asks the user to confirm before it deletes.").
		Task(sake.TaskOptional).TaskTiming(10*time.Minute, 200*time.Millisecond)
	d.Tool("MultiInput").Description("A task that asks two questions at once.").
		Task(sake.TaskOptional).TaskTiming(10*time.Minute, 200*time.Millisecond)
	d.Tool("TestToolWithTask").Name("test_tool_with_task").Description("Asks the user's name, then continues as a task.").
		Task(sake.TaskRequired).TaskStartedByCode().TaskTiming(10*time.Minute, 200*time.Millisecond)
}

// GreetArgs are the arguments of greet.
type GreetArgs struct {
	Name string `json:"name"`
}

// Greet greets.
func (e *Everything) Greet(ctx *sake.Context, a GreetArgs) (string, error) {
	return "Hello, " + a.Name + "!", nil
}

// ComputeArgs are the arguments of slow_compute.
type ComputeArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"minimum=0,maximum=3600"`
	Label   string  `json:"label,omitempty"`
}

// SlowCompute works for a while.
func (e *Everything) SlowCompute(ctx *sake.Context, a ComputeArgs) (string, error) {
	if a.Seconds > 0 {
		timer := time.NewTimer(time.Duration(a.Seconds * float64(time.Second)))
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return fmt.Sprintf("Computed %q in %v seconds.", a.Label, a.Seconds), nil
}

// FailingJob ends with a tool error.
func (e *Everything) FailingJob(ctx *sake.Context) (string, error) {
	select {
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return "", errors.New("the job failed, as it always does")
}

// ProtocolErrorJob fails unexpectedly.
func (e *Everything) ProtocolErrorJob(ctx *sake.Context) (string, error) {
	panic("protocol_error_job always fails")
}

// DeleteForm asks to confirm a deletion.
type DeleteForm struct {
	Confirm bool `json:"confirm"`
}

// DeleteArgs are the arguments of confirm_delete.
type DeleteArgs struct {
	Filename string `json:"filename,omitempty" jsonschema:"description=The file to delete"`
}

// ConfirmDelete asks before deleting.
func (e *Everything) ConfirmDelete(ctx *sake.Context, a DeleteArgs) (string, error) {
	var f DeleteForm
	action, err := ctx.Elicit("confirm", "Delete "+a.Filename+"?", &f)
	if err != nil {
		return "", err
	}
	if action == sake.Accept && f.Confirm {
		return "Deleted " + a.Filename + ".", nil
	}
	return "Kept " + a.Filename + ".", nil
}

// MultiInput asks two questions at once.
func (e *Everything) MultiInput(ctx *sake.Context) (string, error) {
	var first, second NameForm
	_, err1 := ctx.Elicit("first", "First name?", &first)
	_, err2 := ctx.Elicit("second", "Second name?", &second)
	if err := errors.Join(err1, err2); err != nil {
		return "", err
	}
	return "Got " + first.Name + " and " + second.Name + ".", nil
}

// TestToolWithTask gathers a name in the request, then runs as a task.
func (e *Everything) TestToolWithTask(ctx *sake.Context) (string, error) {
	var f NameForm
	if _, err := ctx.Elicit("user_name", "What is your name?", &f); err != nil {
		return "", err
	}
	if err := ctx.StartTask(); err != nil {
		return "", err
	}
	return "Hello, " + f.Name + "! (finished as task " + ctx.TaskID() + ")", nil
}
