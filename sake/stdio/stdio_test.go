package stdio_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func TestModernToolsCall(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(call(1, "echo", `{"text":"hello"}`, ""))
	m := c.recvID(1)
	if got := m.text(t); got != "hello" {
		t.Errorf("text = %q, want hello", got)
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if r.ResultType != "complete" {
		t.Errorf("a modern result needs resultType: %s", m.raw)
	}
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("after EOF: %v, extra output %v", err, rest)
	}
}

func TestLegacySession(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(initialize)
	m := c.recvID("init")
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(m.Result, &init); err != nil || init.ProtocolVersion != sake.Legacy {
		t.Fatalf("initialize: %s", m.raw)
	}
	c.send(initialized, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m = c.recvID(2)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		ResultType *string `json:"resultType"`
	}
	if err := json.Unmarshal(m.Result, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 4 || list.ResultType != nil {
		t.Errorf("tools/list in the session: %s", m.raw)
	}
	c.send(legacyCall(3, "echo", `{"text":"in session"}`))
	if got := c.recvID(3).text(t); got != "in session" {
		t.Errorf("text = %q", got)
	}
	// A modern request is still served statelessly next to the session.
	c.send(call(4, "echo", `{"text":"modern"}`, ""))
	if got := c.recvID(4).text(t); got != "modern" {
		t.Errorf("text = %q", got)
	}
}

func TestNotificationsAndResponsesGetNoOutput(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(
		initialized, // no session yet: ignored
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{`+modernMeta+`}}}`,
		cancelled(99),                          // unknown id: ignored
		`{"jsonrpc":"2.0","id":5,"result":{}}`, // a response from the client
		"", "   ", "\t\r",                      // blank lines are skipped
		call(7, "echo", `{"text":"after"}`, ""),
	)
	if got := c.recvID(7).text(t); got != "after" {
		t.Errorf("text = %q", got)
	}
}

func TestGarbageLine(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send("this is not JSON", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, call(2, "echo", `{"text":"still here"}`, ""))
	m := c.recv()
	if m.Error == nil || m.Error.Code != -32700 || string(m.ID) != "null" {
		t.Errorf("garbage: %s", m.raw)
	}
	m = c.recv()
	if m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("batch: %s", m.raw)
	}
	if got := c.recvID(2).text(t); got != "still here" {
		t.Errorf("text = %q", got)
	}
}

func TestOverLongLine(t *testing.T) {
	c := start(t, newServer(t, newTools()), stdio.MaxLineBytes(64))
	ping := func(id int) string { return `{"jsonrpc":"2.0","id":` + jsonOf(id) + `,"method":"ping"}` }
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	c.send(strings.Repeat("x", 200), ping(2))
	m := c.recv()
	if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "null" ||
		!strings.HasPrefix(m.Error.Message, "message too long:") || !strings.HasSuffix(m.Error.Message, "the limit is 64 bytes") {
		t.Fatalf("over-long line: %s", m.raw)
	}
	c.recvID(2)

	// Exactly the limit passes, with or without "\r"; one byte more does not.
	c.send(pad(ping(3), 64), pad(ping(4), 64)+"\r", pad(ping(5), 65))
	got := map[string]bool{}
	for range 3 {
		m := c.recv()
		if m.Error != nil && m.Error.Code == -32600 {
			got["too long"] = true
		} else {
			got[string(m.ID)] = m.Error == nil
		}
	}
	if !got["3"] || !got["4"] || !got["too long"] {
		t.Fatalf("at the limit: %v", got)
	}

	// A line far longer than the read buffer is skipped as well.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":"`+strings.Repeat("y", 300<<10)+`"}}`, ping(7))
	if m := c.recv(); m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "307") {
		t.Fatalf("huge line: %s", m.raw)
	}
	c.recvID(7)
}

func TestConcurrentRequests(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.send(call(2, "echo", `{"text":"meanwhile"}`, ""))
	if got := c.recvID(2).text(t); got != "meanwhile" {
		t.Errorf("text = %q", got)
	}
	close(tl.block)
	if got := c.recvID(1).text(t); got != "done" {
		t.Errorf("text = %q", got)
	}
}

func TestMaxConcurrent(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl), stdio.MaxConcurrent(1))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.send(call(2, "echo", `{"text":"queued"}`, ""))
	close(tl.block)
	// The echo could start only once wait had finished.
	c.recvID(1)
	c.recvID(2)
}

func TestCancelWhileAllBusy(t *testing.T) {
	// With every worker busy, a request waits, and the cancellation of the
	// running one is still read.
	tl := newTools()
	c := start(t, newServer(t, tl), stdio.MaxConcurrent(1))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.send(call(2, "echo", `{"text":"waiting"}`, ""), cancelled(1))
	wait(t, tl.stopped, "wait to see its context end")
	if got := c.recvID(2).text(t); got != "waiting" {
		t.Errorf("text = %q", got)
	}
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

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

func TestCancelled(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			tl := newTools()
			c := start(t, newServer(t, tl))
			waitReq, echoReq := call("w", "wait", "", ""), call(2, "echo", `{"text":"next"}`, "")
			if era == "legacy" {
				c.send(initialize)
				c.recvID("init")
				c.send(initialized)
				waitReq, echoReq = legacyCall("w", "wait", ""), legacyCall(2, "echo", `{"text":"next"}`)
			}
			c.send(waitReq)
			wait(t, tl.started, "wait to start")
			c.send(cancelled("w"))
			wait(t, tl.stopped, "wait to see its context end")
			c.send(echoReq)
			c.recvID(2)
			rest, err := c.closeInput()
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
			for _, m := range rest {
				t.Errorf("written after the cancellation: %s", m.raw)
			}
		})
	}
}

func TestCancelledRightAway(t *testing.T) {
	// The cancellation follows the request at once, likely before the
	// request's goroutine has reached the tool.
	tl := newTools()
	c := start(t, newServer(t, tl))
	c.send(call(1, "wait", "", ""), cancelled(1), call(2, "echo", `{"text":"x"}`, ""))
	c.recvID(2)
	// Serve returns only once the wait request is over, and block is never
	// closed: the request was cancelled, before or after its tool started.
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("Serve: %v, written: %v", err, rest)
	}
}

func TestEOFWaitsForRunningRequests(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.in.Close()
	select {
	case <-c.done:
		t.Fatal("Serve returned with a request running")
	case <-tl.stopped:
		t.Fatal("EOF cancelled the request")
	default:
	}
	close(tl.block)
	rest, err := c.finish()
	if err != nil {
		t.Errorf("Serve after EOF: %v", err)
	}
	if len(rest) != 1 || string(rest[0].ID) != "1" || rest[0].text(t) != "done" {
		t.Errorf("the response was not written: %v", rest)
	}
}

func TestContextCancel(t *testing.T) {
	// On a connection, Serve interrupts its pending read and returns at once.
	t.Run("conn", func(t *testing.T) {
		tl := newTools()
		sc, cliConn := net.Pipe()
		defer cliConn.Close()
		srvConn := &deadlines{Conn: sc}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- stdio.Serve(ctx, newServer(t, tl), srvConn, srvConn, stdio.Logger(quiet)) }()
		output := make(chan string, 16)
		go func() {
			defer close(output)
			b := make([]byte, 4096)
			for {
				n, err := cliConn.Read(b)
				if err != nil {
					return
				}
				output <- string(b[:n])
			}
		}()
		if _, err := io.WriteString(cliConn, call(1, "wait", "", "")+"\n"); err != nil {
			t.Fatal(err)
		}
		wait(t, tl.started, "wait to start")
		cancel()
		wait(t, tl.stopped, "wait to see its context end")
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Serve = %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return")
		}
		cliConn.Close()
		for o := range output {
			t.Errorf("written for a cancelled request: %s", o)
		}
		// The deadlines Serve set to stop reading and writing are cleared.
		if n := len(srvConn.read); n == 0 || !srvConn.read[n-1].IsZero() {
			t.Errorf("read deadlines: %v", srvConn.read)
		}
		if n := len(srvConn.write); n > 0 && !srvConn.write[n-1].IsZero() {
			t.Errorf("write deadlines: %v", srvConn.write)
		}
	})
	// On a plain reader, Serve cancels the requests at once and returns
	// when the pending read does.
	t.Run("pipe", func(t *testing.T) {
		tl := newTools()
		c := start(t, newServer(t, tl))
		c.send(call(1, "wait", "", ""))
		wait(t, tl.started, "wait to start")
		c.cancel()
		wait(t, tl.stopped, "wait to see its context end")
		rest, err := c.closeInput()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve = %v, want context.Canceled", err)
		}
		for _, m := range rest {
			t.Errorf("written for a cancelled request: %s", m.raw)
		}
	})
}

// deadlines records the deadlines set on a connection; Serve's goroutine
// sets them, and the test reads them after Serve returns.
type deadlines struct {
	net.Conn
	read, write []time.Time
}

func (d *deadlines) SetReadDeadline(t time.Time) error {
	d.read = append(d.read, t)
	return d.Conn.SetReadDeadline(t)
}

func (d *deadlines) SetWriteDeadline(t time.Time) error {
	d.write = append(d.write, t)
	return d.Conn.SetWriteDeadline(t)
}

func TestWriteFailure(t *testing.T) {
	tl := newTools()
	c := start(t, newServer(t, tl))
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.outR.Close() // the client stops reading
	c.send(call(2, "echo", `{"text":"lost"}`, ""))
	wait(t, tl.stopped, "the running request to be cancelled")
	_, err := c.closeInput()
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Serve = %v, want the write error", err)
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

func TestProgressBeforeResult(t *testing.T) {
	c := start(t, newServer(t, newTools()))
	c.send(call(1, "count", "", `"progressToken":"tok"`))
	for _, want := range []float64{1, 2} {
		m := c.recv()
		var p struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if m.Method != "notifications/progress" || p.ProgressToken != "tok" || p.Progress != want {
			t.Fatalf("want progress %v, got %s", want, m.raw)
		}
	}
	if got := c.recvID(1).text(t); got != "counted" {
		t.Errorf("text = %q", got)
	}
}

func TestIdentity(t *testing.T) {
	c := start(t, newServer(t, newTools()), stdio.Identity(&sake.Identity{Subject: "host-user"}))
	c.send(call(1, "who", "", ""))
	if got := c.recvID(1).text(t); got != "host-user" {
		t.Errorf("identity = %q", got)
	}
}

func TestEndsWithoutNewline(t *testing.T) {
	// The last message may lack its terminator; an io.Reader that is not
	// a pipe works as well.
	var out strings.Builder
	in := strings.NewReader(call(1, "echo", `{"text":"a"}`, "") + "\r\n\n" + call(2, "echo", `{"text":"b"}`, ""))
	if err := stdio.Serve(context.Background(), newServer(t, newTools()), in, &out, stdio.Logger(quiet)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want two lines, got %q", out.String())
	}
}

// errReader fails after its data.
type errReader struct {
	data string
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	var out strings.Builder
	in := &errReader{data: call(1, "echo", `{"text":"a"}`, "") + "\n", err: boom}
	err := stdio.Serve(context.Background(), newServer(t, newTools()), in, &out, stdio.Logger(quiet))
	if !errors.Is(err, boom) {
		t.Errorf("Serve = %v, want the read error", err)
	}
	if !strings.Contains(out.String(), `"id":1`) {
		t.Errorf("the request read before the error was not answered: %q", out.String())
	}
}

// rawTools returns pretty-printed JSON, with raw newlines.
type rawTools struct{}

func (rawTools) Pretty(ctx *sake.Context) (json.RawMessage, error) {
	return json.RawMessage("{\n  \"a\": 1\n}"), nil
}

func TestNoRawNewlineInOutput(t *testing.T) {
	c := start(t, newServer(t, rawTools{}))
	c.send(call(1, "pretty", "", ""))
	m := c.recvID(1) // one line, valid JSON
	if strings.Contains(m.raw, "\n") {
		t.Errorf("raw newline in %q", m.raw)
	}
}
