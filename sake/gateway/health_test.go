package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestReadinessFollowsARequiredEntry: /readyz answers 503 while a
// required entry is down (the error shown with its secret hidden) and
// 200 once it is back; an entry not required never makes it unready.
func TestReadinessFollowsARequiredEntry(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	var mu sync.Mutex
	var events []gateway.CallEvent
	restarts := make(chan string, 16)
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"alpha": {"url": %q, "required": true},
		"beta": {"url": %q}}}`, alpha.url+"/mcp?key=hunter2-secret", beta.url+"/mcp"),
		gateway.Observe(gateway.Hooks{
			Call:      func(e gateway.CallEvent) { mu.Lock(); events = append(events, e); mu.Unlock() },
			Restarted: func(s string) { restarts <- s },
		}))
	c := saketest.Connect(t, g.Server())
	if _, err := c.CallTool("alpha_echo", nil); err != nil {
		t.Fatal(err)
	}
	if b := getHealth(t, g.ReadyHandler(), http.StatusOK); !b.Ready || b.Servers[0].State != "up" || b.Servers[0].Calls != 1 || !b.Servers[0].Required {
		t.Fatalf("ready = %+v", b)
	}

	// beta down: still ready.
	beta.down.Store(true)
	beta.ts.CloseClientConnections()
	until(t, g.Server(), "beta goes down", func() bool { return !g.Status()[1].Connected })
	getHealth(t, g.ReadyHandler(), http.StatusOK)

	// alpha down: not ready, and the error hides the URL's secret.
	alpha.down.Store(true)
	alpha.ts.CloseClientConnections()
	until(t, g.Server(), "alpha goes down", func() bool { return !g.Status()[0].Connected })
	until(t, g.Server(), "alpha's error is known", func() bool { return g.Status()[0].Err != nil })
	b := getHealth(t, g.ReadyHandler(), http.StatusServiceUnavailable)
	if b.Ready || b.Servers[0].State != "down" || b.Servers[0].LastError == "" {
		t.Fatalf("alpha down: %+v", b)
	}
	// The liveness probe still answers 200.
	live := getHealth(t, g.HealthHandler(), http.StatusOK)
	for _, h := range []healthJSON{b, live} {
		for _, s := range h.Servers {
			if strings.Contains(s.LastError, "hunter2-secret") {
				t.Errorf("the health body shows a secret: %q", s.LastError)
			}
		}
	}

	alpha.down.Store(false)
	if s := <-restarts; s != "alpha" {
		t.Fatalf("restarted %q", s)
	}
	until(t, g.Server(), "alpha comes back", func() bool { return g.Status()[0].Connected })
	b = getHealth(t, g.ReadyHandler(), http.StatusOK)
	if b.Servers[0].Restarts != 1 {
		t.Errorf("alpha's restarts = %d", b.Servers[0].Restarts)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 1 || events[0].Server != "alpha" || events[0].Method != "tools/call" || events[0].Failed {
		t.Errorf("call events = %+v", events)
	}
}

// TestCallsAndErrorsAreCounted: a tool's error result counts as an
// error of its entry.
func TestCallsAndErrorsAreCounted(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"qs": %s}}`, stdioEntry()))
	c := saketest.Connect(t, g.Server())
	if _, err := c.CallTool("qs_greet", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool("qs_getenv", map[string]any{"name": 3}); err == nil {
		t.Log("a wrong argument was accepted")
	}
	s := g.Status()[0]
	if s.Calls != 2 || s.Errors != 1 {
		t.Fatalf("calls %d errors %d, want 2 and 1", s.Calls, s.Errors)
	}
}

// A request refused before it reaches its entry (here an unsupported
// protocol version) is no call of the entry's, and no error of it.
func TestRefusedRequestsAreNotCountedForTheirEntry(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"qs": %s}}`, stdioEntry()))
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"qs_greet","_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if r := g.Server().Handle(t.Context(), msg, nil); r.ErrorCode != sake.CodeUnsupportedProtocolVersion {
		t.Fatalf("reply = %s, want an unsupported version", r.Body)
	}
	if s := g.Status()[0]; s.Calls != 0 || s.Errors != 0 {
		t.Fatalf("calls %d errors %d, want none", s.Calls, s.Errors)
	}
}
