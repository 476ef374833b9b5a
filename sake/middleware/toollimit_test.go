package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// blocking has a tool that waits until the test releases it or its context
// ends, and one that answers at once.
type blocking struct {
	started  chan string   // the text of each call that started
	release  chan struct{} // a call waits for one value
	cleanups chan struct{} // a value per call whose deferred cleanup ran
}

func newBlocking() *blocking {
	return &blocking{started: make(chan string, 16), release: make(chan struct{}, 16), cleanups: make(chan struct{}, 16)}
}

func (b *blocking) Wait(ctx *sake.Context, a textArgs) (string, error) {
	defer func() { b.cleanups <- struct{}{} }()
	b.started <- a.Text
	select {
	case <-b.release:
		return "released " + a.Text, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (b *blocking) Quick(ctx *sake.Context, a textArgs) (string, error) { return a.Text, nil }

func toolLimited(t *testing.T, impl any, limits ...middleware.ToolLimit) *sake.Server {
	t.Helper()
	mw, err := middleware.ToolLimits(limits...)
	if err != nil {
		t.Fatal(err)
	}
	return sake.MustNew(impl, sake.Use(mw), sake.Logger(quiet))
}

// After its timeout a tool's context ends, its cleanup runs, and the caller
// gets an isError result that says what happened; other tools are not
// limited.
func TestToolTimeout(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		b := newBlocking()
		srv := toolLimited(t, b, middleware.ToolLimit{Tools: []string{"wait"}, Timeout: time.Millisecond})
		c := saketest.Connect(t, srv, opts...)
		_, err := c.CallTool("wait", map[string]any{"text": "a"})
		te := toolError(t, err)
		if !strings.Contains(te.Error(), "Tool wait did not finish within 1ms and was stopped") {
			t.Errorf("timed-out call: %q", te.Error())
		}
		select {
		case <-b.cleanups:
		default:
			t.Error("the tool's cleanup did not run before the answer")
		}
		if res, err := c.CallTool("quick", map[string]any{"text": "q"}); err != nil || res.Text() != "q" {
			t.Errorf("quick: %v %v", res, err)
		}
	})
}

// A tool that finishes within its timeout answers as usual; a call the
// client cancels is a cancellation, not a timeout.
func TestToolTimeoutNotReached(t *testing.T) {
	t.Parallel()
	b := newBlocking()
	srv := toolLimited(t, b, middleware.ToolLimit{Timeout: time.Hour})
	c := saketest.Connect(t, srv)
	b.release <- struct{}{}
	if res, err := c.CallTool("wait", map[string]any{"text": "a"}); err != nil || res.Text() != "released a" {
		t.Fatalf("call: %v %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.WithContext(ctx).CallTool("wait", map[string]any{"text": "b"})
		done <- err
	}()
	<-b.started // a
	<-b.started // b
	cancel()
	if err := <-done; err == nil || strings.Contains(err.Error(), "did not finish within") {
		t.Errorf("cancelled call: %v, want a cancellation", err)
	}
	<-b.cleanups
	<-b.cleanups
}

// MaxConcurrent refuses the call beyond it with CodeServerBusy (HTTP 503
// with Retry-After); once a call ends the next one runs.
func TestToolMaxConcurrent(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		b := newBlocking()
		srv := toolLimited(t, b, middleware.ToolLimit{Tools: []string{"wait"}, MaxConcurrent: 1})
		c := saketest.Connect(t, srv, opts...)
		first := make(chan error, 1)
		go func() { _, err := c.CallTool("wait", map[string]any{"text": "1"}); first <- err }()
		<-b.started
		_, err := c.CallTool("wait", map[string]any{"text": "2"})
		if e := rpcError(t, err); e.Code != sake.CodeServerBusy || retryMs(t, e) != 1000 {
			t.Fatalf("second call: %v, want busy", err)
		}
		if _, err := c.CallTool("quick", map[string]any{"text": "q"}); err != nil {
			t.Errorf("another tool: %v", err)
		}
		b.release <- struct{}{}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		b.release <- struct{}{}
		if _, err := c.CallTool("wait", map[string]any{"text": "3"}); err != nil {
			t.Fatalf("after the first ended: %v", err)
		}
	})
}

// MaxPerSubject refuses one subject's call beyond it with CodeRateLimited;
// another subject's call runs.
func TestToolMaxPerSubject(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		b := newBlocking()
		srv := toolLimited(t, b, middleware.ToolLimit{MaxPerSubject: 1})
		alice := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("alice"))...)
		bob := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("bob"))...)
		first := make(chan error, 1)
		go func() { _, err := alice.CallTool("wait", map[string]any{"text": "a1"}); first <- err }()
		<-b.started
		_, err := alice.CallTool("wait", map[string]any{"text": "a2"})
		if e := rpcError(t, err); e.Code != sake.CodeRateLimited || !strings.Contains(e.Message, "at most 1") {
			t.Fatalf("alice's second call: %v, want refused", err)
		}
		second := make(chan error, 1)
		go func() { _, err := bob.CallTool("wait", map[string]any{"text": "b1"}); second <- err }()
		<-b.started // bob's call runs beside alice's
		b.release <- struct{}{}
		b.release <- struct{}{}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if err := <-second; err != nil {
			t.Fatalf("bob: %v", err)
		}
	})
}

// A queued call that waits longer than QueueWait is refused.
func TestToolQueueWait(t *testing.T) {
	t.Parallel()
	b := newBlocking()
	srv := toolLimited(t, b, middleware.ToolLimit{Tools: []string{"wait"}, MaxConcurrent: 1, Queue: 1, QueueWait: time.Millisecond})
	c := saketest.Connect(t, srv)
	first := make(chan error, 1)
	go func() { _, err := c.CallTool("wait", map[string]any{"text": "1"}); first <- err }()
	<-b.started
	_, err := c.CallTool("wait", map[string]any{"text": "2"})
	if e := rpcError(t, err); e.Code != sake.CodeServerBusy {
		t.Fatalf("queued call: %v, want busy after QueueWait", err)
	}
	b.release <- struct{}{}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// Over HTTP a per-tool refusal is 503 and a per-subject one 429, both with
// Retry-After.
func TestToolLimitsOverHTTP(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, c := range []struct {
			name   string
			limit  middleware.ToolLimit
			status int
		}{
			{"tool", middleware.ToolLimit{MaxConcurrent: 1}, http.StatusServiceUnavailable},
			{"subject", middleware.ToolLimit{MaxPerSubject: 1}, http.StatusTooManyRequests},
		} {
			t.Run(era+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				b := newBlocking()
				h := endpoint(t, toolLimited(t, b, c.limit))
				alice := newHTTPCaller(t, h, era, "192.0.2.1", "alice")
				done := make(chan int, 1)
				go func() {
					done <- alice.postAs(1000, "tools/call", "wait", `{"name":"wait","arguments":{"text":"x"}}`).Code
				}()
				<-b.started
				r := alice.call("wait")
				if r.Code != c.status || r.Header().Get("Retry-After") != "1" {
					t.Errorf("refused call: %d Retry-After %q %s", r.Code, r.Header().Get("Retry-After"), r.Body)
				}
				b.release <- struct{}{}
				if code := <-done; code != http.StatusOK {
					t.Errorf("first call: %d", code)
				}
			})
		}
	}
}

func toolError(t *testing.T, err error) *sake.ToolError {
	t.Helper()
	te, ok := err.(*sake.ToolError)
	if !ok {
		t.Fatalf("want an isError result, got %v", err)
	}
	return te
}

func TestToolLimitsRefuses(t *testing.T) {
	t.Parallel()
	if _, err := middleware.ToolLimits(middleware.ToolLimit{}, middleware.ToolLimit{}); err == nil {
		t.Error("two defaults accepted")
	}
	if _, err := middleware.ToolLimits(middleware.ToolLimit{Tools: []string{"a"}}, middleware.ToolLimit{Tools: []string{"b", "a"}}); err == nil {
		t.Error("a tool in two limits accepted")
	}
}

// expiring reports what its context says once it ends.
type expiring struct{ seen chan string }

func (e expiring) Expire(ctx *sake.Context) (string, error) {
	d, ok := ctx.Deadline()
	<-ctx.Done()
	e.seen <- fmt.Sprint(ok, !d.IsZero(), errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(context.Cause(ctx), context.DeadlineExceeded))
	return "", ctx.Err()
}

func (e expiring) Quick(ctx *sake.Context) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		return "", errors.New("no deadline")
	}
	return "ok", nil
}

// A timed-out call's context has the deadline and ends with
// context.DeadlineExceeded; many calls at once each keep their own.
func TestToolTimeoutContext(t *testing.T) {
	t.Parallel()
	e := expiring{seen: make(chan string, 1)}
	srv := toolLimited(t, e, middleware.ToolLimit{Tools: []string{"expire"}, Timeout: time.Millisecond}, middleware.ToolLimit{Timeout: time.Hour})
	c := saketest.Connect(t, srv)
	if _, err := c.CallTool("expire", nil); err == nil {
		t.Fatal("expire succeeded")
	}
	if got := <-e.seen; got != "true true true true" {
		t.Errorf("deadline, its time, Err, Cause: %s", got)
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := c.CallTool("quick", nil); err != nil || res.Text() != "ok" {
				t.Errorf("quick: %v %v", res, err)
			}
		}()
	}
	wg.Wait()
}

// deriving waits on a context derived from its call's.
type deriving struct{ seen chan error }

func (d deriving) Derive(ctx *sake.Context) (string, error) {
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	<-child.Done()
	d.seen <- context.Cause(child)
	return "", child.Err()
}

// A context derived from a call's ends when the call's timeout passes,
// with the deadline as its cause.
func TestToolTimeoutReachesDerivedContexts(t *testing.T) {
	t.Parallel()
	d := deriving{seen: make(chan error, 1)}
	srv := toolLimited(t, d, middleware.ToolLimit{Timeout: time.Millisecond})
	c := saketest.Connect(t, srv)
	if _, err := c.CallTool("derive", nil); err == nil {
		t.Fatal("derive succeeded")
	}
	if err := <-d.seen; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the derived context's cause: %v", err)
	}
}

// unwatching has tools that never wait on their context's Done: one polls
// Err, one works until its deadline without looking at its context again.
type unwatching struct{ errs chan error }

func (u unwatching) Poll(ctx *sake.Context) (string, error) {
	for ctx.Err() == nil {
		runtime.Gosched() // a tool busy with work, checking Err between steps
	}
	u.errs <- ctx.Err()
	return "", ctx.Err()
}

func (u unwatching) Overrun(ctx *sake.Context) (string, error) {
	d, _ := ctx.Deadline()
	for time.Now().Before(d) {
		runtime.Gosched() // a tool busy with work past its deadline
	}
	return "", errors.New("gave up")
}

// A tool's context ends at its deadline for a tool that only asks Err, and
// a tool that fails after its deadline, never having asked, is answered as
// timed out: the deadline holds without a timer for calls that do not ask
// for Done.
func TestToolTimeoutWithoutDone(t *testing.T) {
	t.Parallel()
	u := unwatching{errs: make(chan error, 1)}
	srv := toolLimited(t, u, middleware.ToolLimit{Timeout: time.Millisecond})
	c := saketest.Connect(t, srv)
	for _, tool := range []string{"poll", "overrun"} {
		_, err := c.CallTool(tool, nil)
		if te := toolError(t, err); !strings.Contains(te.Error(), "Tool "+tool+" did not finish within 1ms and was stopped") {
			t.Errorf("%s: %q", tool, te.Error())
		}
	}
	if err := <-u.errs; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("poll saw %v, want context.DeadlineExceeded", err)
	}
}
