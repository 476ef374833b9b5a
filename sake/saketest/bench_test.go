package saketest_test

import (
	"context"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// BenchmarkTaskCreateAndPoll measures a tools/call that becomes a task,
// then tasks/get polls until it completes, in memory.
func BenchmarkTaskCreateAndPoll(b *testing.B) {
	m := tasks.New()
	defer func() { _ = m.Shutdown(context.Background()) }()
	c := saketest.Connect(b, sake.MustNew(newExporter(), sake.Tasks(m)))
	b.ReportAllocs()
	for b.Loop() {
		_, task, err := c.CallToolAsync("quick", nil)
		if err != nil || task == nil {
			b.Fatal(err)
		}
		got, err := c.AwaitTask(task.ID, 10*time.Second)
		if err != nil || got.Status != sake.TaskCompleted {
			b.Fatal(got, err)
		}
	}
}

// BenchmarkTaskGet measures one tasks/get of a finished task.
func BenchmarkTaskGet(b *testing.B) {
	m := tasks.New()
	defer func() { _ = m.Shutdown(context.Background()) }()
	c := saketest.Connect(b, sake.MustNew(newExporter(), sake.Tasks(m)))
	_, task, err := c.CallToolAsync("quick", nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.AwaitTask(task.ID, 10*time.Second); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetTask(task.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallTool measures one in-memory tools/call, with the leak
// check's goroutine label and the wire trace (the default) and without.
func BenchmarkCallTool(b *testing.B) {
	for name, opts := range map[string][]saketest.Option{
		"default":                       nil,
		"WithoutLeakCheck+WithoutTrace": {saketest.WithoutLeakCheck(), saketest.WithoutTrace()},
	} {
		b.Run(name, func(b *testing.B) {
			c := saketest.Connect(b, Greeter{}, opts...)
			args := map[string]any{"name": "Rui"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CallTool("greet", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
