package middleware_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// jobs has tools that run as tasks: one fails with a secret in its error,
// one answers more than a small cap, one turns into a task from its code.
type jobs struct{}

const leakedSecret = "postgres://app:hunter2@db.internal/prod"

func (jobs) Migrate(ctx *sake.Context, a sizeArgs) (string, error) {
	return "", errors.New("dial " + leakedSecret + ": connection refused")
}

func (jobs) Export(ctx *sake.Context, a sizeArgs) (string, error) {
	return strings.Repeat("x", a.N), nil
}

func (jobs) Rebuild(ctx *sake.Context, a sizeArgs) (string, error) {
	if err := ctx.StartTask(); err != nil {
		return "", err
	}
	return "", errors.New("rebuild against " + leakedSecret + " failed")
}

func (jobs) Declare(d *sake.Declarations) {
	d.Tool("Migrate").Task(sake.TaskRequired)
	d.Tool("Export").Task(sake.TaskRequired)
	d.Tool("Rebuild").Task(sake.TaskOptional).TaskStartedByCode()
}

// shapedJobs is a server on m with MaskErrors and a 1000-byte ResultCap.
func shapedJobs(t *testing.T, m *tasks.Manager, rc middleware.ResultCap) *sake.Server {
	t.Helper()
	srv := sake.MustNew(jobs{}, sake.Tasks(m), sake.Logger(quiet),
		sake.Use(middleware.MaskErrors(slog.New(slog.DiscardHandler)), rc.Middleware()))
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return srv
}

// checkShapedTasks starts tasks through start and reads them through
// read (the same server, or another replica): what tasks/get and
// tasks/result answer is masked and capped as a result answered in the
// request is.
func checkShapedTasks(t *testing.T, start, read *saketest.Client, legacy bool) {
	t.Helper()
	await := func(tool string, args any) (*saketest.Task, *sake.ToolResult) {
		t.Helper()
		res, task, err := start.CallToolAsync(tool, args)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if task == nil {
			t.Fatalf("%s answered in the request: %v", tool, res)
		}
		done, err := read.AwaitTask(task.ID, 30*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		final, err := read.TaskResult(task.ID)
		var te *sake.ToolError
		if err != nil && !errors.As(err, &te) {
			t.Fatalf("%s: tasks/result: %v", tool, err)
		}
		return done, final
	}
	text := func(task *saketest.Task, final *sake.ToolResult, err error) string {
		var b strings.Builder
		if task.Result != nil {
			b.WriteString(task.Result.Text())
		}
		b.WriteString(task.StatusMessage)
		if final != nil {
			b.WriteString(final.Text())
		}
		return b.String()
	}
	tools := []string{"migrate"}
	if !legacy {
		tools = append(tools, "rebuild")
	}
	for _, tool := range tools {
		task, final := await(tool, map[string]any{"n": 1})
		got := text(task, final, nil)
		if strings.Contains(got, "hunter2") {
			t.Errorf("%s: the task answers the error's text: %s", tool, got)
		}
		if !strings.Contains(got, "Tool "+tool+" failed. The error was logged with reference") {
			t.Errorf("%s: the task does not answer the masked error: %s", tool, got)
		}
	}
	task, final := await("export", map[string]any{"n": 5000})
	if got := text(task, final, nil); strings.Contains(got, "xxxxxxxxxx") || !strings.Contains(got, "The result of tool export was 5000 bytes, over this server's limit of 1000 bytes") {
		t.Errorf("export: the task answers a result past the cap: %.300s", got)
	}
}

// MaskErrors and ResultCap shape a task's final result as they shape a
// result answered in the request, in both task shapes.
func TestResultMiddlewareShapesTasks(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		m := tasks.New()
		t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
		srv := shapedJobs(t, m, middleware.ResultCap{MaxBytes: 1000})
		c := saketest.Connect(t, srv, as(opts, "alice")...)
		checkShapedTasks(t, c, c, len(opts) > 0)
	})
}

// Request.MayBecomeTask is true for the calls that can become tasks
// (which middleware then pays WithTaskResult for), and false for the
// others: a tool that never runs as one, a client of the 2025-11-25 era
// that did not ask for a task, a modern client without the extension.
func TestMayBecomeTask(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		m := tasks.New()
		t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
		seen := make(chan bool, 1)
		probe := func(next sake.Handler) sake.Handler {
			return func(ctx context.Context, req *sake.Request) (any, error) {
				if req.Method == "tools/call" {
					seen <- req.MayBecomeTask()
				}
				return next(ctx, req)
			}
		}
		srv := sake.MustNew(struct {
			jobs
			tools
		}{}, sake.Tasks(m), sake.Logger(quiet), sake.Use(probe))
		legacy := len(opts) > 0
		c := saketest.Connect(t, srv, as(opts, "alice")...)
		if _, err := c.CallTool("echo", map[string]any{"text": "hi"}); err != nil || <-seen {
			t.Errorf("a tool that never runs as a task: %v", err)
		}
		if _, _, err := c.CallToolAsync("export", map[string]any{"n": 1}); err != nil || !<-seen {
			t.Errorf("a task tool the client asks to run as a task: %v", err)
		}
		if legacy {
			return
		}
		bare := saketest.Connect(t, srv, append(as(opts, "alice"), saketest.WithoutTasks())...)
		_, _ = bare.CallTool("rebuild", map[string]any{"n": 1})
		if <-seen {
			t.Error("a modern client without the tasks extension")
		}
	})
}
