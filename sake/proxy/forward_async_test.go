package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// A proxy served over stdio in front of a stdio server forwards each
// tools/call without holding a goroutine while the remote works: the
// reply is finished on the goroutine that reads the remote's answer.
// These tests drive that path from a real stdio front.

// stdioFront serves srv over a pair of pipes with stdio.Serve and
// connects a client to it. served is closed when Serve returns; closeIn
// ends the front's input.
type stdioFront struct {
	c       *client.Client
	served  chan struct{}
	err     error
	closeIn func()
}

func serveStdioFront(t *testing.T, srv *sake.Server, opts ...client.Option) *stdioFront {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &stdioFront{served: make(chan struct{}), closeIn: func() { inW.Close() }}
	go func() {
		f.err = stdio.Serve(context.Background(), srv, inR, outW)
		outW.Close()
		close(f.served)
	}()
	c, err := client.Connect(t.Context(), client.Stream(outR, inW), opts...)
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	t.Cleanup(func() {
		c.Close()
		inW.Close()
		<-f.served
	})
	return f
}

// heldProxy is a proxy of the hand-written stdio server, which holds each
// call of "work" until the test answers it.
func heldProxy(t *testing.T, opts ...proxy.Option) (*stdioServer, *sake.Server) {
	t.Helper()
	fake, tr := newStdioServer(t)
	remote, err := client.Connect(t.Context(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	srv, err := proxy.New(t.Context(), remote, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return fake, srv
}

// goroutinesIn counts the goroutines whose stack names fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}

// callAsync calls work in the background and returns where its outcome
// arrives.
func callAsync(ctx context.Context, c *client.Client, i int) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		res, err := c.CallTool(ctx, "work", map[string]any{"n": i})
		ch <- outcome{res, err}
	}()
	return ch
}

type outcome struct {
	res *protocol.ToolResult
	err error
}

func textOf(t *testing.T, o outcome) string {
	t.Helper()
	if o.err != nil {
		t.Fatalf("call failed: %v", o.err)
	}
	if len(o.res.Content) != 1 {
		t.Fatalf("result = %+v", o.res)
	}
	tc, ok := o.res.Content[0].(*protocol.TextContent)
	if !ok {
		t.Fatalf("content = %T", o.res.Content[0])
	}
	return tc.Text
}

func TestForwardedCallsHoldNoGoroutineWhileTheRemoteWorks(t *testing.T) {
	fake, srv := heldProxy(t)
	front := serveStdioFront(t, srv)
	const n = 20
	outs := make([]<-chan outcome, n)
	ids := make([]json.RawMessage, n)
	for i := range n {
		outs[i] = callAsync(t.Context(), front.c, i)
		select {
		case ids[i] = <-fake.calls:
		case <-time.After(waitFor):
			t.Fatalf("call %d never reached the remote", i)
		}
	}
	// Every call is at the remote: none of them holds a goroutine of the
	// proxy waiting for its answer. (The front's client waits, in the
	// test's goroutines, in its own roundTrip: those are counted apart.)
	if waiting := goroutinesIn("proxy.(*proxy).callTaskTool") + goroutinesIn("proxy.(*proxy).syncTools.func1"); waiting != 0 {
		t.Errorf("%d goroutines of the proxy wait for the remote's answers; want 0", waiting)
	}
	// Answered in the reverse order, each reply reaches its own caller.
	for i := n - 1; i >= 0; i-- {
		fake.finish(ids[i], fmt.Sprintf("done %d", i))
	}
	for i := range n {
		select {
		case o := <-outs[i]:
			if got, want := textOf(t, o), fmt.Sprintf("done %d", i); got != want {
				t.Errorf("call %d got %q, want %q", i, got, want)
			}
		case <-time.After(waitFor):
			t.Fatalf("call %d got no reply", i)
		}
	}
}

func TestForwardedCallCancelledByItsCaller(t *testing.T) {
	fake, srv := heldProxy(t)
	front := serveStdioFront(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	out := callAsync(ctx, front.c, 1)
	var id json.RawMessage
	select {
	case id = <-fake.calls:
	case <-time.After(waitFor):
		t.Fatal("the call never reached the remote")
	}
	cancel()
	if o := <-out; !errors.Is(o.err, context.Canceled) {
		t.Fatalf("cancelled call = %+v, %v", o.res, o.err)
	}
	// The remote is told, with the id it was sent.
	want := `"requestId":` + string(id)
	for {
		select {
		case line := <-fake.cancels:
			if strings.Contains(line, want) {
				goto told
			}
		case <-time.After(waitFor):
			t.Fatalf("the remote was never told of the cancellation of %s", id)
		}
	}
told:
	// Its late answer goes nowhere, and the next call is answered.
	fake.finish(id, "too late")
	next := callAsync(t.Context(), front.c, 2)
	id2 := <-fake.calls
	fake.finish(id2, "second")
	if got := textOf(t, <-next); got != "second" {
		t.Fatalf("next call got %q", got)
	}
}

func TestForwardedCallTimesOut(t *testing.T) {
	fake, srv := heldProxy(t, proxy.CallTimeout(50*time.Millisecond))
	front := serveStdioFront(t, srv)
	out := callAsync(t.Context(), front.c, 1)
	<-fake.calls // never answered
	o := <-out
	if o.err == nil || !strings.Contains(o.err.Error(), "did not answer within 50ms") {
		t.Fatalf("call past the timeout = %+v, %v; want an error naming the timeout", o.res, o.err)
	}
}

func TestForwardedCallsFailWhenTheRemoteStops(t *testing.T) {
	fake, srv := heldProxy(t)
	front := serveStdioFront(t, srv)
	out := callAsync(t.Context(), front.c, 1)
	<-fake.calls
	fake.stop() // its output ends
	o := <-out
	if o.err == nil || !strings.Contains(o.err.Error(), "stopped") {
		t.Fatalf("call to a stopped remote = %+v, %v; want an error saying it stopped", o.res, o.err)
	}
}

func TestStdioFrontWaitsForForwardedCallsAtTheEndOfItsInput(t *testing.T) {
	fake, srv := heldProxy(t)
	front := serveStdioFront(t, srv)
	out := callAsync(t.Context(), front.c, 1)
	id := <-fake.calls
	front.closeIn()
	select {
	case <-front.served:
		t.Fatal("Serve returned while a forwarded call was running")
	default:
	}
	fake.finish(id, "after the end")
	if got := textOf(t, <-out); got != "after the end" {
		t.Fatalf("reply = %q", got)
	}
	select {
	case <-front.served:
	case <-time.After(waitFor):
		t.Fatal("Serve did not return once the call was answered")
	}
	if front.err != nil {
		t.Fatalf("Serve: %v", front.err)
	}
}

func TestForwardedCallsBeyondMaxInFlightAreRefused(t *testing.T) {
	fake, srv := heldProxy(t, proxy.MaxInFlight(2))
	front := serveStdioFront(t, srv)
	a, b := callAsync(t.Context(), front.c, 1), callAsync(t.Context(), front.c, 2)
	ida, idb := <-fake.calls, <-fake.calls
	o := <-callAsync(t.Context(), front.c, 3)
	if !isCode(o.err, sake.CodeInternalError) || !strings.Contains(o.err.Error(), "requests in flight") {
		t.Fatalf("third call = %+v, %v; want the busy error", o.res, o.err)
	}
	// The two reached the remote in either order.
	fake.finish(ida, "first")
	fake.finish(idb, "second")
	if got := []string{textOf(t, <-a), textOf(t, <-b)}; !slices.Contains(got, "first") || !slices.Contains(got, "second") {
		t.Fatalf("the calls in flight got %q", got)
	}
}

// A Request hook (sake.ObserveOutcome) sees each forwarded call once, when
// its reply is ready, with the remote tool's error result marked.
func TestRequestHookSeesForwardedCallsOnce(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var pending atomic.Int32
	hook := sake.ObserveOutcome(sake.Hooks{Request: func(ctx context.Context, req *sake.Request) (context.Context, func(sake.RequestDone)) {
		if req.Method != "tools/call" {
			return ctx, nil
		}
		pending.Add(1)
		return ctx, func(d sake.RequestDone) {
			pending.Add(-1)
			mu.Lock()
			seen = append(seen, fmt.Sprintf("toolError=%v err=%v", d.ToolError, d.Error != nil))
			mu.Unlock()
		}
	}})
	fake, srv := heldProxy(t, proxy.ServerOptions(hook))
	front := serveStdioFront(t, srv)
	out := callAsync(t.Context(), front.c, 1)
	id := <-fake.calls
	if pending.Load() != 1 {
		t.Fatalf("%d calls pending at the hook while the remote works; want 1", pending.Load())
	}
	fake.write(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}`, id)
	o := <-out
	if te := (*protocol.ToolError)(nil); !errors.As(o.err, &te) || !o.res.IsError {
		t.Fatalf("error result = %+v, %v; want the remote's error result", o.res, o.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "toolError=true err=false" {
		t.Fatalf("the hook saw %q; want one call with its error result", seen)
	}
}

// The kit's tools through a proxy with stdio on both sides, in each era
// on each side: plain calls take the path without a waiting goroutine;
// a remote's questions (asked in the call, or with input_required),
// error results, refusals and progress all reach the caller as they do
// over other transports.
func TestProxyWithStdioOnBothSides(t *testing.T) {
	t.Parallel()
	for _, remoteEra := range eras {
		for _, localEra := range eras {
			t.Run("remote "+remoteEra.Name+"/local "+localEra.Name, func(t *testing.T) {
				t.Parallel()
				remoteSrv, _ := newKitServer(t)
				remote := connect(t, transports[2], remoteSrv, append(remoteEra.Opts, client.ForwardQuestions())...)
				proxySrv, err := proxy.New(t.Context(), remote, proxy.Prefix("up_"))
				if err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				var asked []string
				local := serveStdioFront(t, proxySrv, append(localEra.Opts, askOptions(&asked, &mu)...)...).c
				callKitTools(t, local)
				res, err := local.CallTool(t.Context(), "up_ask", nil)
				if remoteEra.Want == protocol.EraLegacy {
					// A handshake-era server over stdio names no call in its
					// questions: the one forwarded call in flight gets them,
					// but roots/list belongs to the session, never to a call.
					if err == nil || !strings.Contains(err.Error(), "outside any forwarded call") {
						t.Fatalf("ask through the proxy = %v, %v; want roots/list refused", res, err)
					}
				} else if err != nil || res.Text() != "accept Ada / model says hi / file:///work" {
					t.Fatalf("ask through the proxy = %v, %v", res, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if !slices.Contains(asked, "elicit form Your name?") || !slices.Contains(asked, "sample") {
					t.Fatalf("the caller was asked %v", asked)
				}
			})
		}
	}
}

// Many forwarded calls at once, some answered, some cancelled by their
// callers, the rest cut off when the remote stops: every call ends, each
// with its own outcome, and the front goes on serving.
func TestForwardedCallsEndWhateverEndsThem(t *testing.T) {
	fake, srv := heldProxy(t, proxy.MaxInFlight(200))
	front := serveStdioFront(t, srv)
	const n = 90
	type call struct {
		cancel context.CancelFunc
		out    <-chan outcome
	}
	calls := make([]call, n)
	for i := range n {
		ctx, cancel := context.WithCancel(t.Context())
		calls[i] = call{cancel, callAsync(ctx, front.c, i)}
	}
	// The remote answers every other call as it comes, with the n it was
	// given; the test waits until all have come.
	seen := 0
	for seen < n {
		select {
		case id := <-fake.calls:
			seen++
			if seen%2 == 0 {
				fake.finish(id, "answered")
			}
		case <-time.After(waitFor):
			t.Fatalf("%d of %d calls reached the remote", seen, n)
		}
	}
	for i := 0; i < n; i += 3 {
		calls[i].cancel()
	}
	fake.stop()
	answered, cancelled, stopped := 0, 0, 0
	for i, c := range calls {
		select {
		case o := <-c.out:
			switch {
			case o.err == nil && o.res.Text() == "answered":
				answered++
			case errors.Is(o.err, context.Canceled) && i%3 == 0:
				cancelled++
			case o.err != nil && strings.Contains(o.err.Error(), "stopped"):
				stopped++
			default:
				t.Errorf("call %d ended with %+v, %v", i, o.res, o.err)
			}
		case <-time.After(waitFor):
			t.Fatalf("call %d never ended", i)
		}
		c.cancel()
	}
	// A call answered as its caller cancels it may end either way.
	if answered+cancelled+stopped != n || answered < n/2-n/3 || stopped == 0 {
		t.Errorf("%d answered, %d cancelled, %d cut off; want every call ended, at least %d answered", answered, cancelled, stopped, n/2-n/3)
	}
	// The front still answers what needs no remote.
	if err := front.c.Ping(t.Context()); err != nil {
		t.Fatalf("ping after the remote stopped: %v", err)
	}
}
