package saketest

import (
	"fmt"
	"strings"
)

// notePanic keeps a panic of user code for the call that caused it to
// report, so the failure points at the test's line.
func (c *Client) notePanic(r any, stack []byte) {
	c.mu.Lock()
	c.panics = append(c.panics, fmt.Sprintf("saketest: panic in the server: %v\n%s", r, userFrames(stack)))
	c.mu.Unlock()
}

// reportPanics fails the test with the panics noted since the last call,
// at the caller's line (every function between the test and here is a
// helper).
func (c *Client) reportPanics() {
	c.t.Helper()
	c.mu.Lock()
	ps := c.panics
	c.panics = nil
	c.mu.Unlock()
	for _, p := range ps {
		c.t.Errorf("%s", p)
	}
}

// userFrames keeps the frames of a panic's stack (runtime/debug.Stack)
// that are the application's: from the panicking function to the one the
// server called, without the runtime's and the dispatcher's.
func userFrames(stack []byte) string {
	lines := strings.Split(strings.TrimRight(string(stack), "\n"), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "goroutine ") {
		lines = lines[1:]
	}
	start := -1
	for i := 0; i+1 < len(lines); i += 2 {
		if strings.HasPrefix(lines[i], "panic(") {
			start = i + 2
			break
		}
	}
	if start < 0 {
		return string(stack) // not the shape expected: all of it
	}
	var b strings.Builder
	for i := start; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "reflect.Value.") || strings.HasPrefix(fn, "github.com/sakemcp/sake-go/sake.(*callable)") {
			break
		}
		b.WriteString(lines[i])
		b.WriteByte('\n')
		b.WriteString(lines[i+1])
		b.WriteByte('\n')
	}
	return b.String()
}
