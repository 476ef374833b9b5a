package saketest

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// clients numbers the clients, to label the goroutines each one starts.
var clients atomic.Int64

// labelKey is the goroutine label (runtime/pprof) that marks what a client
// started: every goroutine the server or the transport starts during one
// of its calls inherits it, so the check counts this test's goroutines
// only, even among parallel tests.
const labelKey = "saketest-client"

// labelled runs fn with the client's goroutine label.
func (c *Client) labelled(ctx context.Context, fn func(ctx context.Context)) {
	if c.label == "" {
		fn(ctx)
		return
	}
	pprof.Do(ctx, c.labels, fn)
}

// ownedBy returns the stacks of the live goroutines labelled label, less
// those of what the test made and stops itself: a task manager it did not
// hand to Connect (its tasks), the host's HTTP handler (its session
// janitor, ended by Handler.Close), and the idle keep-alive connections of
// an HTTP client a tool or proxy used (http.DefaultClient's pool among
// them, which the transport ends after its IdleConnTimeout or with
// CloseIdleConnections).
func ownedBy(label string, foreignTasks bool) []string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	want := fmt.Sprintf("%q:%q", labelKey, label)
	var out []string
	for _, group := range strings.Split(b.String(), "\n\n") {
		if !strings.Contains(group, "# labels: ") || !strings.Contains(group, want) {
			continue
		}
		if (foreignTasks && isTaskRunner(group)) || strings.Contains(group, "sake/plug.(*Handler).janitor") || isIdleConn(group) {
			continue
		}
		out = append(out, group)
	}
	return out
}

// isTaskRunner reports whether a goroutine runs a task or belongs to a
// task manager.
func isTaskRunner(stack string) bool {
	for _, f := range []string{"sake.(*Server).runTask", "sake.(*Server).callTask", "sake.(*Server).finishTask", "sake-go/sake/tasks."} {
		if strings.Contains(stack, f) {
			return true
		}
	}
	return false
}

// isIdleConn reports whether a goroutine is one of the two of a pooled
// HTTP/1 client connection with no request on it: its write loop (which
// waits for the next request whatever the state), or its read loop
// waiting for the next response. A read loop held by a response body left
// open waits elsewhere, and is a leak. An HTTP/2 connection's read loop
// is pooled too; idle or not, its stack is the same.
func isIdleConn(stack string) bool {
	switch {
	case strings.Contains(stack, "net/http.(*persistConn).writeLoop"):
		return true
	case strings.Contains(stack, "net/http.(*persistConn).readLoop"):
		return strings.Contains(stack, "bufio.(*Reader).Peek")
	}
	return strings.Contains(stack, "net/http.(*http2ClientConn).readLoop")
}

// checkLeaks fails the test if goroutines the client started are still
// running when the test ends. Goroutines end a little after what ended
// them, with no event to wait on, so it looks again with a growing pause,
// for up to wait.
func (c *Client) checkLeaks(wait time.Duration) {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		left := ownedBy(c.label, !c.ownsTasks)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			c.t.Errorf("saketest: %d goroutine group(s) started by this test's calls still run after it ended "+
				"(a tool, task or stream that does not stop when its context ends?); pass saketest.WithoutLeakCheck() to skip this check:\n%s",
				len(left), strings.Join(left, "\n\n"))
			return
		}
		runtime.Gosched()
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// nextLabel returns a new client's goroutine label.
func nextLabel() string { return strconv.FormatInt(clients.Add(1), 10) }
