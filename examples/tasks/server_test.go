package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

func server(t *testing.T, e *Exports) *sake.Server {
	t.Helper()
	tm := tasks.New()
	t.Cleanup(func() { _ = tm.Shutdown(context.Background()) })
	return sake.MustNew(e, sake.Tasks(tm))
}

func eras(t *testing.T, body func(t *testing.T, era saketest.Option)) {
	t.Run("modern", func(t *testing.T) { t.Parallel(); body(t, saketest.ClientInfo("test", "1")) })
	t.Run("legacy", func(t *testing.T) { t.Parallel(); body(t, saketest.Legacy()) })
}

func TestSmallExportCompletes(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		c := saketest.Connect(t, server(t, &Exports{}), era)
		res, err := c.CallTool("export", map[string]any{"table": "orders", "records": 3})
		if err != nil || !strings.HasPrefix(res.Text(), "Exported 3 records.\nid,table\n1,orders\n2,orders\n3,orders") {
			t.Fatalf("export = %v, %v", res, err)
		}
	})
}

func TestLargeExportAsksHalfWay(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		for answer, want := range map[bool]string{true: "Exported 100 records.", false: "Stopped after 50 of 100 records."} {
			c := saketest.Connect(t, server(t, &Exports{}), era, saketest.OnInput(func(p protocol.ElicitRequest) protocol.ElicitResult {
				return saketest.Accept(map[string]any{"proceed": answer})
			}))
			res, err := c.CallTool("export", map[string]any{"table": "customers", "records": 100})
			if err != nil || !strings.HasPrefix(res.Text(), want) {
				t.Fatalf("proceed=%v: %v, %v", answer, res, err)
			}
			saketest.AssertAsked(t, c, "elicitation/create", map[string]any{"message": "50 of 100 records are exported. Export the rest?"})
		}
	})
}

func TestExportReportsProgressAndCanBeCancelled(t *testing.T) {
	t.Parallel()
	eras(t, func(t *testing.T, era saketest.Option) {
		gate := make(chan struct{})
		c := saketest.Connect(t, server(t, &Exports{Gate: gate}), era)
		_, task, err := c.CallToolAsync("export", map[string]any{"table": "orders", "records": 10})
		if err != nil || task == nil {
			t.Fatalf("async = %+v, %v", task, err)
		}
		gate <- struct{}{} // record 1
		gate <- struct{}{} // record 2 (and record 1's progress is recorded)
		got, err := c.GetTask(task.ID)
		if err != nil || got.Status != sake.TaskWorking || !strings.HasSuffix(got.StatusMessage, "of 10 records") {
			t.Fatalf("working task = %+v, %v", got, err)
		}
		if err := c.CancelTask(task.ID); err != nil {
			t.Fatal(err)
		}
		got, err = c.AwaitTask(task.ID, 10*time.Second)
		if err != nil || got.Status != sake.TaskCancelled {
			t.Fatalf("cancelled task = %+v, %v", got, err)
		}
	})
}

func TestInvalidExportArguments(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, server(t, &Exports{}))
	res, err := c.CallTool("export", map[string]any{"table": "payroll", "records": 3})
	if err == nil || res == nil || !strings.Contains(res.Text(), "table") {
		t.Fatalf("invalid table: %v, %v", res, err)
	}
}
