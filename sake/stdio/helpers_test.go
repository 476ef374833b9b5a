package stdio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// tools is the server the tests talk to.
type tools struct {
	block   chan struct{} // closed to let Wait return "done"
	started chan struct{} // closed when Wait starts
	stopped chan struct{} // closed when Wait sees its context end
}

func newTools() *tools {
	return &tools{block: make(chan struct{}), started: make(chan struct{}), stopped: make(chan struct{})}
}

type echoArgs struct {
	Text string `json:"text"`
}

func (t *tools) Echo(ctx *sake.Context, a echoArgs) (string, error) { return a.Text, nil }

func (t *tools) Wait(ctx *sake.Context) (string, error) {
	close(t.started)
	select {
	case <-t.block:
		return "done", nil
	case <-ctx.Done():
		close(t.stopped)
		return "", ctx.Err()
	}
}

func (t *tools) Count(ctx *sake.Context) (string, error) {
	ctx.Progress(1, 2, "half")
	ctx.Progress(2, 2, "all")
	return "counted", nil
}

func (t *tools) Who(ctx *sake.Context) (string, error) {
	if id := ctx.Identity(); id != nil {
		return id.Subject, nil
	}
	return "anonymous", nil
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newServer(t testing.TB, impl any) *sake.Server {
	t.Helper()
	srv, err := sake.New(impl, sake.Logger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

const modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// call is a modern tools/call; extraMeta is added to its _meta.
func call(id any, tool, args, extraMeta string) string {
	if args == "" {
		args = "{}"
	}
	m := modernMeta
	if extraMeta != "" {
		m += "," + extraMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"_meta":{%s},"name":%q,"arguments":%s}}`, jsonOf(id), m, tool, args)
}

// legacyCall is a tools/call without _meta, for a legacy session.
func legacyCall(id any, tool, args string) string {
	if args == "" {
		args = "{}"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, jsonOf(id), tool, args)
}

func cancelled(id any) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, jsonOf(id))
}

const (
	initialize  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// message is a line the server wrote.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// text returns the first text block of a tools/call result.
func (m message) text(t testing.TB) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("not a tool result: %s", m.raw)
	}
	if r.IsError {
		t.Fatalf("a tool error: %s", m.raw)
	}
	return r.Content[0].Text
}

// client drives Serve through two pipes, as a process's stdin and stdout.
type client struct {
	t      testing.TB
	in     *io.PipeWriter
	outR   *io.PipeReader
	lines  chan string
	cancel context.CancelFunc
	done   chan struct{} // closed when Serve returned, with err set
	err    error
}

// start runs Serve for srv until the test ends.
func start(t testing.TB, srv *sake.Server, opts ...stdio.Option) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, in: inW, outR: outR, lines: make(chan string, 1024), cancel: cancel, done: make(chan struct{})}
	opts = append([]stdio.Option{stdio.Logger(quiet)}, opts...)
	go func() {
		c.err = stdio.Serve(ctx, srv, inR, outW, opts...)
		outW.Close()
		inR.Close()
		close(c.done)
	}()
	go func() {
		defer close(c.lines)
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				if line != "" {
					c.lines <- "UNTERMINATED:" + line
				}
				return
			}
			c.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-c.done
		for range c.lines {
		}
	})
	return c
}

// send writes lines to the server's input.
func (c *client) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			c.t.Fatalf("send: %v", err)
		}
	}
}

// recv returns the next line the server wrote.
func (c *client) recv() message {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("recv: the output ended")
		}
		var m message
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			c.t.Fatalf("recv: not JSON: %q", l)
		}
		m.raw = l
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatal("recv: nothing written for 10s")
	}
	panic("unreachable")
}

// recvID returns the next line and checks it is the response to id.
func (c *client) recvID(id any) message {
	c.t.Helper()
	m := c.recv()
	if string(m.ID) != jsonOf(id) {
		c.t.Fatalf("got %s, want the response to %s", m.raw, jsonOf(id))
	}
	return m
}

// closeInput ends the server's input and returns what Serve returned,
// with the lines written meanwhile.
func (c *client) closeInput() (rest []message, err error) {
	c.t.Helper()
	c.in.Close()
	return c.finish()
}

// finish collects the remaining output and Serve's result.
func (c *client) finish() (rest []message, err error) {
	c.t.Helper()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				<-c.done
				return rest, c.err
			}
			var m message
			_ = json.Unmarshal([]byte(l), &m)
			m.raw = l
			rest = append(rest, m)
		case <-time.After(10 * time.Second):
			c.t.Fatal("Serve did not return within 10s")
		}
	}
}

// wait fails the test if ch is not closed within 10s.
func wait(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
