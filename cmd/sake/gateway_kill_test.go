package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// commandEnv makes the test binary run the sake command on its arguments,
// as its own process: tests that kill a gateway start it so.
const commandEnv = "SAKE_CMD_TEST_COMMAND"

// gatewayProcess is a sake gateway running as a process of its own.
type gatewayProcess struct {
	cmd    *exec.Cmd
	host   string // host:port it serves
	exited chan error
}

// startGatewayProcess runs sake gateway args as a process, the test
// binary in commandEnv's role, and returns once it serves (the args must
// include -http 127.0.0.1:0 and -log-format json).
func startGatewayProcess(t *testing.T, args ...string) *gatewayProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"gateway"}, args...)...)
	cmd.Env = append(os.Environ(), commandEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &gatewayProcess{cmd: cmd, exited: make(chan error, 1)}
	sc := bufio.NewScanner(stderr)
	var logged []string
	for sc.Scan() {
		logged = append(logged, sc.Text())
		var rec struct{ Msg, URL string }
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "serving" {
			p.host = strings.TrimSuffix(strings.TrimPrefix(rec.URL, "http://"), "/mcp")
			break
		}
	}
	go func() {
		_, _ = io.Copy(io.Discard, stderr)
		p.exited <- cmd.Wait()
	}()
	if p.host == "" {
		t.Fatalf("the gateway process never served: %v\n%s", <-p.exited, strings.Join(logged, "\n"))
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	return p
}

// balancer sends each request to the next live gateway, with no
// stickiness, as a load balancer that drops a backend once it is down
// (or, pinned, to one gateway); it records which gateway opened and which
// served each session.
type balancer struct {
	mu     sync.Mutex
	hosts  []string
	down   map[string]bool
	pinned string
	next   int
	opened map[string]string   // session id -> the gateway that began it
	served map[string][]string // session id -> the gateways that served it
}

func (b *balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	b.mu.Lock()
	host := b.pinned
	for range b.hosts {
		if host != "" {
			break
		}
		if h := b.hosts[b.next%len(b.hosts)]; !b.down[h] {
			host = h
		}
		b.next++
	}
	sid := req.Header.Get("Mcp-Session-Id")
	if sid != "" {
		b.served[sid] = append(b.served[sid], host)
	}
	b.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Host, req.Host = host, host
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && sid == "" {
		if opened := resp.Header.Get("Mcp-Session-Id"); opened != "" {
			b.mu.Lock()
			b.opened[opened] = host
			b.mu.Unlock()
		}
	}
	return resp, err
}

// markDown takes host out of the rotation.
func (b *balancer) markDown(host string) {
	b.mu.Lock()
	b.down[host] = true
	b.mu.Unlock()
}

// pin sends every request to host ("" for the rotation).
func (b *balancer) pin(host string) {
	b.mu.Lock()
	b.pinned = host
	b.mu.Unlock()
}

// sessions returns the sessions opened, by the gateway that began each,
// and the gateways that served session sid, in order.
func (b *balancer) sessions(sid string) (map[string]string, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	opened := make(map[string]string, len(b.opened))
	for k, v := range b.opened {
		opened[k] = v
	}
	return opened, append([]string(nil), b.served[sid]...)
}

// echoOn calls tool echo with text on c and checks the answer.
func echoOn(t *testing.T, ctx context.Context, c *client.Client, tool, text string) {
	t.Helper()
	res, err := c.CallTool(ctx, tool, json.RawMessage(fmt.Sprintf(`{"text":%q}`, text)))
	if err != nil || res.Text() != text {
		t.Fatalf("%s(%q) = %v, %v", tool, text, res, err)
	}
}

// TestGatewayReplicaSurvivesItsPeerKilled: two sake gateway processes on
// one PostgreSQL, each with its own child (a stdio entry) and its own
// connection to an HTTP entry. A 2025-11-25 session opened through A, and
// a modern client, go on through B once A is killed (SIGKILL: nothing of
// A's sessions is shut down); a call in flight on A when it dies fails
// with an error rather than hanging.
func TestGatewayReplicaSurvivesItsPeerKilled(t *testing.T) {
	t.Parallel()
	pgURL := gatewayReplicasDatabase(t)
	web := httptest.NewServer(plug.New(sake.MustNew(&fixture{}, sake.Name("web", "0.1.0"))))
	defer web.Close()
	stdioCmd := fixtureCommand(t)
	config := filepath.Join(t.TempDir(), "mcp.json")
	body := fmt.Sprintf(`{"mcpServers": {
		"fixture": {"command": %q, "args": [%q], "env": {%q: "1"}, "required": true},
		"web": {"url": %q, "required": true}}}`, stdioCmd[0], stdioCmd[1], serveEnv, web.URL)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-config", config, "-http", "127.0.0.1:0", "-log-format", "json", "-postgres", pgURL, "-watch=false"}
	a := startGatewayProcess(t, args...)
	b := startGatewayProcess(t, args...)
	lb := &balancer{hosts: []string{a.host, b.host}, down: map[string]bool{}, opened: map[string]string{}, served: map[string][]string{}}
	ctx := context.Background()

	// The session's initialize goes to A (the first in the rotation).
	asked := make(chan struct{})
	release := make(chan struct{})
	var askOnce sync.Once
	legacy, err := client.Connect(ctx, client.HTTP("http://"+a.host+"/mcp", &http.Client{Transport: lb}),
		client.ProtocolVersion("2025-11-25"),
		client.OnElicit(func(ctx context.Context, _ *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
			askOnce.Do(func() { close(asked) })
			<-release
			return &protocol.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	modern, err := client.Connect(ctx, client.HTTP("http://"+a.host+"/mcp", &http.Client{Transport: lb}))
	if err != nil {
		t.Fatal(err)
	}
	defer modern.Close()
	if legacy.Era() != protocol.EraLegacy || modern.Era() != protocol.EraModern {
		t.Fatalf("eras: %v and %v", legacy.Era(), modern.Era())
	}
	for i := range 2 {
		for _, c := range []*client.Client{legacy, modern} {
			echoOn(t, ctx, c, "fixture_echo", fmt.Sprintf("stdio before %d", i))
			echoOn(t, ctx, c, "web_echo", fmt.Sprintf("http before %d", i))
		}
	}

	// A call in flight on A when A dies: the stdio child of A asks the
	// user, and the answer never reaches it.
	opened, _ := lb.sessions("")
	if len(opened) != 1 {
		t.Fatalf("sessions opened: %v, want one", opened)
	}
	var sessionID string
	for sid, host := range opened {
		if sessionID = sid; host != a.host {
			t.Fatalf("the session began on %s, want A (%s)", host, a.host)
		}
	}
	inflight := make(chan error, 1)
	lb.pin(a.host)
	go func() {
		_, err := legacy.CallTool(ctx, "fixture_ask_name", nil)
		inflight <- err
	}()
	<-asked
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.exited
	lb.markDown(a.host)
	lb.pin("")
	close(release)
	if err := <-inflight; err == nil {
		t.Error("the call in flight on the killed replica succeeded; want an error")
	} else {
		t.Logf("the call in flight on the killed replica: %v", err)
	}

	// The same session, and the modern client, go on through B.
	for i := range 3 {
		for _, c := range []*client.Client{legacy, modern} {
			echoOn(t, ctx, c, "fixture_echo", fmt.Sprintf("stdio after %d", i))
			echoOn(t, ctx, c, "web_echo", fmt.Sprintf("http after %d", i))
		}
	}
	if tools, err := legacy.ListTools(ctx); err != nil || len(tools) == 0 {
		t.Fatalf("tools/list on the session after the kill: %d tools, %v", len(tools), err)
	}
	opened, served := lb.sessions(sessionID)
	if len(opened) != 1 || len(served) < 8 || served[len(served)-1] != b.host {
		t.Fatalf("the session's requests went to %v (sessions %v); want one session, served last by B (%s)", served, opened, b.host)
	}
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-b.exited; err != nil {
		t.Errorf("the surviving replica's exit: %v", err)
	}
}
