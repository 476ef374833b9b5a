package saketest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/tasks"
)

// toucher announces an update of the resource it is given.
type toucher struct{}

type touchArgs struct {
	URI string `json:"uri"`
}

func (toucher) Touch(ctx *sake.Context, a touchArgs) (string, error) {
	ctx.Server().ResourceUpdated(a.URI)
	return "touched", nil
}

// On a shared server each test keeps its own broadcasts with a filter.
func TestListenFilterOnASharedServer(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(toucher{})
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mine := "mem://" + name + "/"
			l := saketest.Listen(t, srv, saketest.OnlyBroadcasts(func(b sake.Broadcast) bool {
				return strings.HasPrefix(b.URI, mine)
			}), saketest.WaitTimeout(time.Minute))
			c := saketest.Connect(t, srv)
			if _, err := c.CallTool("touch", map[string]any{"uri": mine + "x"}); err != nil {
				t.Fatal(err)
			}
			saketest.AssertResourceUpdated(t, l, mine+"x")
			for _, b := range l.Broadcasts() {
				if !strings.HasPrefix(b.URI, mine) {
					t.Errorf("recorded another test's broadcast %+v", b)
				}
			}
		})
	}
}

// A failing assertion waits for the listener's own timeout, set per
// client, per listener or per call, never for a shared variable.
func TestWaitTimeoutPerClientListenerAndCall(t *testing.T) {
	t.Parallel()
	c := saketest.Connect(t, toucher{}, saketest.WaitTimeout(time.Millisecond))
	for name, l := range map[string]*saketest.Listener{
		"client":   saketest.Listen(t, c),
		"listener": saketest.Listen(t, c.Server(), saketest.WaitTimeout(time.Millisecond)),
		"call":     saketest.Listen(t, c.Server()).Within(time.Millisecond),
	} {
		rec := &recorder{TB: t}
		saketest.AssertListChanged(rec, l, sake.ListPrompts)
		if !strings.Contains(rec.msg, "no change of the prompts list") {
			t.Errorf("%s: the failed assertion said %q", name, rec.msg)
		}
	}
	// The wait ends on the broadcast itself, not on a tick.
	l := saketest.Listen(t, c).Within(time.Hour)
	done := make(chan struct{})
	go func() {
		defer close(done)
		saketest.AssertResourceUpdated(t, l, "mem://late")
	}()
	if _, err := c.CallTool("touch", map[string]any{"uri": "mem://late"}); err != nil {
		t.Fatal(err)
	}
	<-done
}

// cleanupTB runs a test's cleanups when told, and records its reports.
type cleanupTB struct {
	testing.TB
	mu     sync.Mutex
	fns    []func()
	errs   []string
	logs   []string
	failed bool
}

func (c *cleanupTB) Cleanup(fn func()) { c.fns = append(c.fns, fn) }
func (c *cleanupTB) Helper()           {}
func (c *cleanupTB) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
	c.failed = true
}
func (c *cleanupTB) Error(args ...any) { c.Errorf("%s", fmt.Sprint(args...)) }

// fatal is what cleanupTB's Fatalf panics with, to stop the caller.
type fatal struct{}

func (c *cleanupTB) Fatalf(format string, args ...any) {
	c.Errorf(format, args...)
	panic(fatal{})
}
func (c *cleanupTB) Log(args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = append(c.logs, fmt.Sprint(args...))
}
func (c *cleanupTB) Logf(format string, args ...any) { c.Log(fmt.Sprintf(format, args...)) }
func (c *cleanupTB) Failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// end runs the cleanups, last registered first, as testing does.
func (c *cleanupTB) end() {
	for i := len(c.fns) - 1; i >= 0; i-- {
		c.fns[i]()
	}
}

// leaker starts a goroutine that outlives its call.
type leaker struct{ stop chan struct{} }

func (l *leaker) Leak(ctx *sake.Context) (string, error) {
	go func() { <-l.stop }()
	return "started", nil
}

func (l *leaker) Tidy(ctx *sake.Context) (string, error) {
	done := make(chan struct{})
	go func() { defer close(done) }()
	<-done
	return "tidy", nil
}

func TestLeakCheck(t *testing.T) {
	t.Parallel()
	BothEras := saketest.BothEras
	BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		l := &leaker{stop: make(chan struct{})}
		defer close(l.stop)
		leaky := &cleanupTB{TB: t}
		c := saketest.Connect(leaky, l, append(opts, saketest.WaitTimeout(20*time.Millisecond))...)
		if _, err := c.CallTool("leak", nil); err != nil {
			t.Fatal(err)
		}
		leaky.end()
		if len(leaky.errs) != 1 || !strings.Contains(leaky.errs[0], "still run after it ended") || !strings.Contains(leaky.errs[0], "leaker).Leak") {
			t.Errorf("a leaked goroutine was reported as %q", leaky.errs)
		}

		tidy := &cleanupTB{TB: t}
		c = saketest.Connect(tidy, l, opts...)
		if _, err := c.CallTool("tidy", nil); err != nil {
			t.Fatal(err)
		}
		tidy.end()
		if len(tidy.errs) != 0 {
			t.Errorf("a test without leaks failed: %q", tidy.errs)
		}

		off := &cleanupTB{TB: t}
		c = saketest.Connect(off, l, append(opts, saketest.WithoutLeakCheck())...)
		if _, err := c.CallTool("leak", nil); err != nil {
			t.Fatal(err)
		}
		off.end()
		if len(off.errs) != 0 {
			t.Errorf("WithoutLeakCheck still checked: %q", off.errs)
		}
	})
}

// A failing test prints the messages its client exchanged.
func TestTracePrintedWhenTheTestFails(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		ft := &cleanupTB{TB: t}
		c := saketest.Connect(ft, Greeter{}, opts...)
		if _, err := c.CallTool("greet", map[string]any{"name": "Ana"}); err != nil {
			t.Fatal(err)
		}
		trace := strings.Join(c.Trace(), "\n")
		if !strings.Contains(trace, `-> {"jsonrpc":"2.0","id":`) || !strings.Contains(trace, `"method":"tools/call"`) || !strings.Contains(trace, "<- ") || !strings.Contains(trace, "Hello, Ana!") {
			t.Errorf("trace:\n%s", trace)
		}
		ft.Errorf("the test failed")
		ft.end()
		if len(ft.logs) != 1 || !strings.Contains(ft.logs[0], "Hello, Ana!") {
			t.Errorf("the failed test logged %q", ft.logs)
		}
		passing := &cleanupTB{TB: t}
		saketest.Connect(passing, Greeter{}, opts...)
		passing.end()
		if len(passing.logs) != 0 {
			t.Errorf("a passing test printed its trace: %q", passing.logs)
		}
	})
}

// A task started by code asks a question; Connect owns the manager.
type asker struct{}

func (asker) Declare(d *sake.Declarations) { d.Tool("Confirm").Task(sake.TaskRequired) }

func (asker) Confirm(ctx *sake.Context) (string, error) {
	var f okForm
	action, err := ctx.Elicit("go_on", "Go on?", &f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %v", action, f.OK), nil
}

// Connect can own the task manager; UpdateTask takes the tool's own keys
// and protocol.ElicitResult values; TaskResult answers a task's questions in both eras.
func TestTasksOwnedByConnect(t *testing.T) {
	t.Parallel()
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, asker{}, append(opts, saketest.Tasks(), saketest.OnInput(func(protocol.ElicitRequest) protocol.ElicitResult {
			return saketest.Accept(map[string]any{"ok": true})
		}))...)
		if c.Server().Tasks() == nil {
			t.Fatal("no task manager")
		}
		_, task, err := c.CallToolAsync("confirm", nil)
		if err != nil || task == nil {
			t.Fatalf("async = %v, %v", task, err)
		}
		res, err := c.TaskResult(task.ID)
		if err != nil || res.Text() != "accept true" {
			t.Fatalf("TaskResult = %v, %v", res, err)
		}
		if c.Session().Era != sake.EraModern {
			return
		}
		_, task, err = c.CallToolAsync("confirm", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.AwaitTask(task.ID, 0)
		if err != nil || got.Status != sake.TaskInputRequired {
			t.Fatalf("awaiting input: %+v, %v", got, err)
		}
		if err := c.UpdateTask(task.ID, map[string]any{"go_on": saketest.Accept(map[string]any{"ok": false})}); err != nil {
			t.Fatal(err)
		}
		done, err := c.TaskResult(task.ID)
		if err != nil || done.Text() != "accept false" {
			t.Errorf("after UpdateTask by the tool's key: %v, %v", done, err)
		}
	})
	// A *sake.Server keeps its own manager.
	ft := &cleanupTB{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (fatal{}) {
				panic(r)
			}
		}()
		saketest.Connect(ft, sake.MustNew(asker{}, sake.Logger(slog.New(slog.DiscardHandler))), saketest.Tasks())
	}()
	ft.end()
	if len(ft.errs) != 1 || !strings.Contains(ft.errs[0], "give sake.Tasks to sake.New") {
		t.Errorf("Tasks with a *sake.Server: %q", ft.errs)
	}
}

// announcer announces changes through its request, so that they carry
// the call's origin.
type announcer struct{}

func (announcer) Announce(ctx *sake.Context, a touchArgs) (string, error) {
	ctx.NotifyListChanged(sake.ListPrompts)
	ctx.ResourceUpdated(a.URI)
	return "announced", nil
}

// asTest is another test's view of t, as OwnBroadcasts tells tests
// apart: its clients' calls and its listeners are its own, while
// failures and cleanups go to t. Two of them stand for two parallel tests
// without subtests that wait on each other, which deadlock when fewer
// tests may run at once than wait.
type asTest struct {
	testing.TB
	name string
}

func (a *asTest) Name() string { return a.TB.Name() + "/" + a.name }

// With OwnBroadcasts, parallel tests on one server each record only what
// their own calls announced.
func TestOwnBroadcastsOnASharedServer(t *testing.T) {
	t.Parallel()
	srv := sake.MustNew(announcer{})
	type party struct {
		name     string
		own, all *saketest.Listener
		c        *saketest.Client
	}
	var parties []*party
	for _, name := range []string{"a", "b"} {
		tb := &asTest{TB: t, name: name}
		// Both record before either announces.
		parties = append(parties, &party{name: name,
			own: saketest.Listen(tb, srv, saketest.OwnBroadcasts()),
			all: saketest.Listen(tb, srv),
			c:   saketest.Connect(tb, srv)})
	}
	var called sync.WaitGroup
	for _, p := range parties {
		called.Go(func() {
			if _, err := p.c.CallTool("announce", map[string]any{"uri": "mem://" + p.name}); err != nil {
				t.Error(err)
			}
		})
	}
	called.Wait() // both have announced
	for _, p := range parties {
		got := p.own.Broadcasts()
		if len(got) != 2 || got[0].List != sake.ListPrompts || got[1].URI != "mem://"+p.name {
			t.Errorf("%s: own broadcasts = %+v, want this test's list change and update only", p.name, got)
		}
		n := 0
		for _, b := range p.all.Broadcasts() {
			if !strings.HasSuffix(b.URI, "/by-the-server") {
				n++
			}
		}
		if n != 4 {
			t.Errorf("%s: the unfiltered listener recorded %d broadcasts, want both tests' 4", p.name, n)
		}
		srv.ResourceUpdated("mem://" + p.name + "/by-the-server")
		saketest.RefuteResourceUpdated(t, p.own, "mem://"+p.name+"/by-the-server")
	}
}

// lateAnnouncer runs as a task that announces an update after its call
// has returned.
type lateAnnouncer struct{ release chan struct{} }

func (lateAnnouncer) Declare(d *sake.Declarations) { d.Tool("Later").Task(sake.TaskRequired) }

func (l lateAnnouncer) Later(ctx *sake.Context, a touchArgs) (string, error) {
	select {
	case <-l.release:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	ctx.ResourceUpdated(a.URI)
	return "announced", nil
}

// A task's broadcasts, made after the call that started it returned,
// carry that call's origin: OwnBroadcasts records them with the test that
// made the call, and not with another test on the same server.
func TestOwnBroadcastsOfATask(t *testing.T) {
	t.Parallel()
	m := tasks.New()
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	release := make(chan struct{})
	srv := sake.MustNew(lateAnnouncer{release: release}, sake.Tasks(m))
	bystander := saketest.Listen(&asTest{TB: t, name: "bystander"}, srv, saketest.OwnBroadcasts())
	caller := &asTest{TB: t, name: "caller"}
	l := saketest.Listen(caller, srv, saketest.OwnBroadcasts())
	c := saketest.Connect(caller, srv)
	_, task, err := c.CallToolAsync("later", map[string]any{"uri": "mem://late-task"})
	if err != nil || task == nil {
		t.Fatalf("async call = %+v, %v", task, err)
	}
	close(release)
	if done, err := c.AwaitTask(task.ID, 10*time.Second); err != nil || done.Status != sake.TaskCompleted {
		t.Fatalf("the task = %+v, %v", done, err)
	}
	saketest.AssertResourceUpdated(t, l, "mem://late-task")
	for _, b := range bystander.Broadcasts() {
		t.Errorf("another test recorded the task's broadcast %+v", b)
	}
}

// fetcher calls an HTTP server with a pooled client, as tools and
// proxies do: the connection stays open, idle, after the call.
type fetcher struct {
	url    string
	client *http.Client
}

func (f fetcher) Fetch(ctx *sake.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return "", err
	}
	res, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// Forgets the body: the connection is not idle but held.
func (f fetcher) Forget(ctx *sake.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return "", err
	}
	res, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	return res.Status, nil
}

// The idle keep-alive connections of an HTTP client a tool used are the
// client's pool, not a leak of the test; a response body left open is.
func TestLeakCheckLeavesIdleConnectionsAlone(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 64<<10))
	}))
	defer upstream.Close()
	for name, hc := range map[string]*http.Client{"default": http.DefaultClient, "own": {Transport: &http.Transport{}}} {
		f := fetcher{url: upstream.URL, client: hc}
		ft := &cleanupTB{TB: t}
		c := saketest.Connect(ft, f, saketest.WaitTimeout(20*time.Millisecond))
		if res, err := c.CallTool("fetch", nil); err != nil || len(res.Text()) != 64<<10 {
			t.Fatalf("%s: fetch = %v, %v", name, res, err)
		}
		ft.end()
		if len(ft.errs) != 0 {
			t.Errorf("%s: idle connections were reported as leaks: %q", name, ft.errs)
		}
	}
	own := &http.Transport{}
	defer own.CloseIdleConnections()
	ft := &cleanupTB{TB: t}
	c := saketest.Connect(ft, fetcher{url: upstream.URL, client: &http.Client{Transport: own}}, saketest.WaitTimeout(20*time.Millisecond))
	if _, err := c.CallTool("forget", nil); err != nil {
		t.Fatal(err)
	}
	ft.end()
	if len(ft.errs) != 1 || !strings.Contains(ft.errs[0], "still run after it ended") {
		t.Errorf("a response body left open was reported as %q", ft.errs)
	}
}
