package stdio_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/stdio"
)

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
