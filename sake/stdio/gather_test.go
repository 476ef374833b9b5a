package stdio_test

import (
	"fmt"
	"testing"

	"github.com/sakemcp/sake-go/sake"
)

// TestResponsesWrittenTogetherAllArrive: requests that end at once write
// their responses from several goroutines, which share a flush (a writer
// yields before it flushes while other requests run); every response
// reaches the client, none is left in the buffer.
func TestResponsesWrittenTogetherAllArrive(t *testing.T) {
	t.Parallel()
	const n = 16
	started, release := make(chan struct{}, n), make(chan struct{})
	srv := sake.MustNew(nil, sake.Name("gather", "1.0.0"))
	_ = srv.AddTool(sake.NewTool("gate", func(ctx *sake.Context, a echoArgs) (string, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return a.Text, nil
	}))
	c := start(t, srv)
	for i := range n {
		c.send(call(i+1, "gate", fmt.Sprintf(`{"text":"call %d"}`, i+1), ""))
	}
	for range n {
		<-started
	}
	close(release)
	seen := map[string]bool{}
	for range n {
		m := c.recv()
		if seen[string(m.ID)] {
			t.Fatalf("a second response to %s: %s", m.ID, m.raw)
		}
		seen[string(m.ID)] = true
		if want := "call " + string(m.ID); m.text(t) != want {
			t.Errorf("response %s = %q; want %q", m.ID, m.text(t), want)
		}
	}
}
