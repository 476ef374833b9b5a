package stdio_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func TestReinitializeCancelsOldSession(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl))
	c.send(initialize)
	c.recvID("init")
	c.send(initialized, legacyCall(1, "wait", ""))
	wait(t, tl.started, "wait to start")
	c.send(initialize)
	wait(t, tl.stopped, "the old session's request to be cancelled")
	c.recvID("init")
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

func TestBroadcastToLegacySession(t *testing.T) {
	srv := newServer(t, newTools())
	c := start(t, srv)
	ping := func(id int) string { return `{"jsonrpc":"2.0","id":` + jsonOf(id) + `,"method":"ping"}` }
	addTool := func(name string) {
		t.Helper()
		if err := srv.AddTool(sake.NewTool(name, func(ctx *sake.Context) (string, error) { return name, nil })); err != nil {
			t.Fatal(err)
		}
	}
	c.send(initialize)
	c.recvID("init")
	addTool("before_initialized") // the session does not want broadcasts yet
	c.send(ping(1))
	c.recvID(1)

	c.send(initialized, ping(2))
	c.recvID(2) // notifications/initialized has been handled
	addTool("x")
	if m := c.recv(); m.Method != "notifications/tools/list_changed" || m.ID != nil {
		t.Fatalf("want list_changed, got %s", m.raw)
	}

	// A second initialize replaces the session: one broadcast, not two.
	c.send(initialize, initialized, ping(3))
	c.recvID("init")
	c.recvID(3)
	addTool("y")
	if m := c.recv(); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("want list_changed, got %s", m.raw)
	}
	c.send(ping(4))
	c.recvID(4)
}

func TestListenSubscription(t *testing.T) {
	srv := newServer(t, newTools())
	c := start(t, srv)
	c.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta":{` + modernMeta + `},"notifications":{"toolsListChanged":true}}}`)
	if m := c.recv(); m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("want the acknowledgement, got %s", m.raw)
	}
	if err := srv.AddTool(sake.NewTool("x", func(ctx *sake.Context) (string, error) { return "x", nil })); err != nil {
		t.Fatal(err)
	}
	m := c.recv()
	if m.Method != "notifications/tools/list_changed" || !strings.Contains(string(m.Params), `"sub"`) {
		t.Fatalf("want a tagged list_changed, got %s", m.raw)
	}
	// The subscription would run forever: EOF ends it.
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

// rootsTools asks the legacy client for its roots.
type rootsTools struct {
	gate    chan struct{} // Later asks once it is closed
	started chan struct{} // closed when Later starts
}

func newRootsTools() *rootsTools {
	return &rootsTools{gate: make(chan struct{}), started: make(chan struct{})}
}

func (r *rootsTools) Roots(ctx *sake.Context) (string, error) {
	roots, err := ctx.ListRoots("roots")
	if err != nil {
		return "", err
	}
	return roots[0].URI, nil
}

func (r *rootsTools) Later(ctx *sake.Context) (string, error) {
	close(r.started)
	<-r.gate
	return r.Roots(ctx)
}

const initializeWithRoots = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"test","version":"1"}}}`

// callRoots opens a legacy session that offers roots, calls the roots
// tool as request 1, and returns the roots/list request it sends.
func callRoots(t *testing.T, c *client) message {
	t.Helper()
	c.send(initializeWithRoots)
	c.recvID("init")
	c.send(initialized, legacyCall(1, "roots", ""))
	ask := c.recv()
	if ask.Method != "roots/list" || ask.ID == nil {
		t.Fatalf("want a roots/list request, got %s", ask.raw)
	}
	return ask
}

func TestServerInitiatedRequest(t *testing.T) {
	// In a legacy session a tool may ask the client: the request goes out
	// on the output, and the client's response, read like any line, is
	// handled while the tool waits.
	c := start(t, newServer(t, newRootsTools()))
	ask := callRoots(t, c)
	c.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"roots":[{"uri":"file:///work","name":"work"}]}}`)
	if got := c.recvID(1).text(t); got != "file:///work" {
		t.Errorf("text = %q", got)
	}
}

func TestAskHandsTheReadingOnAtOnce(t *testing.T) {
	// The tool runs on the reading goroutine and the watchdog would take
	// an hour: the answer is read because asking hands the reading on.
	defer stdio.SetHandoffAfter(time.Hour)()
	c := start(t, newServer(t, newRootsTools()))
	ask := callRoots(t, c)
	// Written aside: were the reading held, the write would block.
	go io.WriteString(c.in, `{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"result":{"roots":[{"uri":"file:///a","name":"a"}]}}`+"\n") //nolint:errcheck // recv reports what is missing
	if got := c.recvID(1).text(t); got != "file:///a" {
		t.Errorf("text = %q", got)
	}
	if rest, err := c.closeInput(); err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

func TestListenDoesNotHoldTheReading(t *testing.T) {
	// A subscription runs until the end: it never runs on the reading
	// goroutine, even when the watchdog would take an hour.
	defer stdio.SetHandoffAfter(time.Hour)()
	c := start(t, newServer(t, newTools()))
	c.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta":{` + modernMeta + `},"notifications":{"toolsListChanged":true}}}`)
	if m := c.recv(); m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("want the acknowledgement, got %s", m.raw)
	}
	go io.WriteString(c.in, call(1, "echo", `{"text":"after"}`, "")+"\n") //nolint:errcheck // recv reports what is missing
	if got := c.recvID(1).text(t); got != "after" {
		t.Errorf("text = %q", got)
	}
	if rest, err := c.closeInput(); err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

func TestEOFWhileAskingTheClient(t *testing.T) {
	// A request waiting for the client's answer cannot finish once the
	// input has ended: it is cancelled, and Serve returns at once.
	c := start(t, newServer(t, newRootsTools()))
	callRoots(t, c)
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

func TestAskAfterEOF(t *testing.T) {
	// So is a request that asks the client after the input has ended.
	tl := newRootsTools()
	c := start(t, newServer(t, tl))
	c.send(initializeWithRoots)
	c.recvID("init")
	c.send(initialized, legacyCall(1, "later", ""))
	wait(t, tl.started, "later to start")
	c.in.Close()
	close(tl.gate)
	rest, err := c.finish()
	if err != nil {
		t.Errorf("Serve = %v", err)
	}
	for _, m := range rest {
		if m.Method != "roots/list" { // written if the ask came before Serve saw EOF
			t.Errorf("written: %s", m.raw)
		}
	}
}
