package tasks_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// reporter is a server whose task reports a status message no store can
// keep.
type reporter struct{}

func (reporter) Declare(d *sake.Declarations) {
	d.Tool("Report").Task(sake.TaskRequired).TaskTiming(time.Hour, 10*time.Millisecond)
}

// Report answers with the JSON-RPC code its Progress was refused with.
func (reporter) Report(c *sake.Context) (string, error) {
	err := c.Progress(1, 2, "half\x00way")
	var rpc *sake.Error
	if !errors.As(err, &rpc) {
		return fmt.Sprintf("not refused: %v", err), nil
	}
	if ok := c.Progress(1, 2, "half way"); ok != nil {
		return "", ok
	}
	return strconv.Itoa(rpc.Code), nil
}

// The tool that sets a status message hears its refusal; the task's
// status message stays as it was.
func TestProgressRefusalReachesTool(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, reporter{}, saketest.Tasks())
	_, task, err := c.CallToolAsync("report", nil)
	if err != nil || task == nil {
		t.Fatalf("start: %v, %v", task, err)
	}
	if got, err := c.AwaitTask(task.ID, 0); err != nil || got.Status != sake.TaskCompleted || got.StatusMessage != "" {
		t.Fatalf("task: %+v, %v", got, err)
	}
	res, err := c.TaskResult(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != "-32602" {
		t.Errorf("the tool heard %q, want the -32602 refusal", got)
	}
}
