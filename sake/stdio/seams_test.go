package stdio_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/stdio"
)

func TestMixedCaseKeysEndOnEOF(t *testing.T) {
	// Keys match exactly, as the server decodes them: this line is a
	// subscriptions/listen request, not a ping, whatever "Method" says.
	// It is long-lived, so the end of the input cancels it and Serve
	// returns.
	c := start(t, newServer(t, newTools()))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","Method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}`)
	if ack := c.recv(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("want the listen acknowledgement, got %s", ack.raw)
	}
	rest, err := c.closeInput()
	if err != nil || len(rest) != 0 {
		t.Errorf("Serve = %v, written %v", err, rest)
	}
}

func TestAnswersReadWhileEveryWorkerAsks(t *testing.T) {
	// Every worker waits for the client's answer and more requests wait
	// behind them: reading goes on, so the answers reach the workers and
	// every call finishes.
	const workers, calls = 2, 5
	c := start(t, newServer(t, newRootsTools()), stdio.MaxConcurrent(workers))
	c.send(initializeWithRoots)
	c.recvID("init")
	c.send(initialized)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= calls; i++ {
			c.send(legacyCall(i, "roots", ""))
		}
	}()
	done := map[string]bool{}
	answer := func(id string) {
		go c.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"roots":[{"uri":"file:///w","name":"w"}]}}`)
	}
	for len(done) < calls {
		m := c.recv()
		switch {
		case m.Method == "roots/list":
			answer(string(m.ID))
		case m.Method == "":
			if got := m.text(t); got != "file:///w" {
				t.Errorf("call %s: text = %q", m.ID, got)
			}
			done[string(m.ID)] = true
		default:
			t.Fatalf("unexpected %s", m.raw)
		}
	}
	wait(t, sent, "every call to be read")
	for i := 1; i <= calls; i++ {
		if !done[fmt.Sprint(i)] {
			t.Errorf("call %d never finished", i)
		}
	}
}

func TestTooManyInFlightRefused(t *testing.T) {
	// A request beyond the server's cap on the connection is refused at
	// once with -32000, and the ones running are unaffected.
	tl := newTools()
	srv := newServerWith(t, tl, 1)
	c := start(t, srv)
	c.send(call(1, "wait", "", ""))
	wait(t, tl.started, "wait to start")
	c.send(call(2, "echo", `{"text":"x"}`, ""))
	m := c.recvID(2)
	if m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, "in flight") {
		t.Fatalf("want a -32000 refusal, got %s", m.raw)
	}
	close(tl.block)
	if got := c.recvID(1).text(t); got != "done" {
		t.Errorf("text = %q", got)
	}
}

// newServerWith is newServer with a cap on the requests in flight.
func newServerWith(t testing.TB, impl any, maxInFlight int) *sake.Server {
	t.Helper()
	srv, err := sake.New(impl, sake.Logger(quiet), sake.WithLimits(sake.Limits{MaxInFlight: maxInFlight}))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
