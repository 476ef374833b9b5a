package saketest

import (
	"fmt"
	"strings"
)

// Bounds of the wire trace a client keeps for a failing test.
const (
	traceMessages = 200  // the last messages kept
	traceBytes    = 2048 // of each message
)

// traceRing keeps the last messages of a client's conversation.
type traceRing struct {
	lines []string
	next  int
	total int
}

// trace records one message: dir is "->" (client to server), "<-" (server
// to client).
func (c *Client) trace(dir string, msg []byte) {
	if len(msg) == 0 || c.opts.noTrace {
		return
	}
	s := string(msg)
	if len(s) > traceBytes {
		s = s[:traceBytes] + fmt.Sprintf("... (%d bytes)", len(msg))
	}
	line := dir + " " + strings.TrimSpace(s)
	c.mu.Lock()
	r := &c.wire
	if len(r.lines) < traceMessages {
		r.lines = append(r.lines, line)
	} else {
		r.lines[r.next] = line
		r.next = (r.next + 1) % traceMessages
	}
	r.total++
	c.mu.Unlock()
}

// Trace returns the messages the client exchanged with the server, oldest
// first: "-> " what it sent, "<- " what it received (responses,
// notifications, the server's requests). It keeps the last 200, each cut
// at 2 KiB. Connect prints it when the test fails.
func (c *Client) Trace() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &c.wire
	out := make([]string, 0, len(r.lines))
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

// printTrace logs the trace of a failed test.
func (c *Client) printTrace() {
	if !c.t.Failed() || c.opts.noTrace {
		return
	}
	lines := c.Trace()
	if len(lines) == 0 {
		return
	}
	c.mu.Lock()
	total := c.wire.total
	c.mu.Unlock()
	head := fmt.Sprintf("saketest: the messages of %s (%s client):", c.t.Name(), c.info.Era)
	if total > len(lines) {
		head += fmt.Sprintf(" the last %d of %d", len(lines), total)
	}
	c.t.Log(head + "\n\t" + strings.Join(lines, "\n\t"))
}
