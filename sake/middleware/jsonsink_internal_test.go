package middleware

import (
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedWriter lets each Write through only when the test says so.
type gatedWriter struct {
	entered chan struct{} // a value when a Write starts
	gate    chan struct{} // a Write returns after taking a value
	mu      sync.Mutex
	out     strings.Builder
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	<-w.gate
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func (w *gatedWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Split(strings.TrimSpace(w.out.String()), "\n")
}

// held waits until the sink holds at least n bytes.
func (c *sinkCore) held(t *testing.T, n int) {
	t.Helper()
	for {
		c.mu.Lock()
		got := len(c.buf)
		c.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched() // polling a condition that has no event
	}
}

// While a JSONSink's writer is busy, the records that follow a full
// buffer are held, not written one by one by each caller; one that finds
// twice the buffer held waits for the writer and writes: the sink holds
// a bounded amount, and drops nothing.
func TestJSONSinkSlowWriter(t *testing.T) {
	t.Parallel()
	w := &gatedWriter{entered: make(chan struct{}), gate: make(chan struct{})}
	sink := NewJSONSink(w, &JSONSinkOptions{Interval: time.Hour, Buffer: 100})
	l := slog.New(sink)
	l.Info("a")
	flushed := make(chan error)
	go func() { flushed <- sink.Flush() }()
	<-w.entered // the writer is busy with a
	filled := make(chan struct{})
	go func() { l.Info(strings.Repeat("b", 60)); close(filled) }() // fills the buffer: its caller waits to write
	sink.core.held(t, 100)
	l.Info("c") // held: it returns while the writer is busy
	over := make(chan struct{})
	go func() { l.Info(strings.Repeat("d", 250)); close(over) }() // twice the buffer held: its caller waits too
	sink.core.held(t, 200)
	w.gate <- struct{}{} // a is written
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	<-w.entered // b, c and d, written by one of their callers
	w.gate <- struct{}{}
	<-filled
	<-over
	got := w.lines()
	if len(got) != 4 || !strings.Contains(got[0], `"msg":"a"`) || !strings.Contains(got[1], "bbbb") || !strings.Contains(got[2], `"msg":"c"`) || !strings.Contains(got[3], "dddd") {
		t.Fatalf("written: %q, want a, b, c, d in two writes", got)
	}
	go func() {
		for range w.entered {
			w.gate <- struct{}{}
		}
	}()
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	close(w.entered)
}
