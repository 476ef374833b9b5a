package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/proxy"
	"github.com/sakemcp/sake-go/sake/saketest"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// stdioEnv makes the test binary a stdio MCP server (see TestMain).
const stdioEnv = "SAKE_GATEWAY_TEST_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(stdioEnv) != "" {
		srv := sake.MustNew(nil, sake.Name("greeter", "1.0.0"))
		_ = srv.AddTool(sake.NewTool("greet", func(*sake.Context) (string, error) { return "hello from stdio", nil }))
		_ = srv.AddTool(sake.NewTool("crash", func(*sake.Context) (string, error) { os.Exit(3); return "", nil }))
		_ = srv.AddTool(sake.NewTool("getenv", func(_ *sake.Context, a struct {
			Name string `json:"name"`
		}) (string, error) {
			return os.Getenv(a.Name), nil
		}))
		if err := stdio.ServeStdio(srv); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Every httptest.Server.Close closes the idle connections of
	// http.DefaultTransport, which would break a request of a parallel
	// test that has just picked one: the remotes' default client gets a
	// transport of its own.
	http.DefaultClient.Transport = http.DefaultTransport.(*http.Transport).Clone()
	os.Exit(m.Run())
}

// waitFor bounds every wait on an event that never comes when the code
// is wrong.
const waitFor = 20 * time.Second

// remoteServer is an HTTP MCP server for the gateway to mount. It
// records the Authorization headers it is sent, can hang a call, and can
// be taken down (503) and brought back.
type remoteServer struct {
	url     string
	ts      *httptest.Server
	down    atomic.Bool
	calls   atomic.Int64  // requests received
	entered chan struct{} // a hang call started
	release chan struct{}

	mu    sync.Mutex
	auths map[string]bool
}

func newRemote(t *testing.T, name string) *remoteServer {
	t.Helper()
	r := &remoteServer{entered: make(chan struct{}, 8), release: make(chan struct{}), auths: map[string]bool{}}
	srv := sake.MustNew(nil, sake.Name(name, "1.0.0"))
	if err := srv.AddTool(
		sake.NewTool("echo", func(*sake.Context) (string, error) { return "echo from " + name, nil }),
		sake.NewTool("hang", func(ctx *sake.Context) (string, error) {
			r.entered <- struct{}{}
			select {
			case <-r.release:
			case <-ctx.Done():
			}
			return "released", nil
		}),
	); err != nil {
		t.Fatal(err)
	}
	ph := plug.New(srv)
	r.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.calls.Add(1)
		r.mu.Lock()
		r.auths[req.Header.Get("Authorization")] = true
		r.mu.Unlock()
		if r.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		ph.ServeHTTP(w, req)
	}))
	t.Cleanup(func() { r.ts.Close(); ph.Close(); close(r.release) })
	r.url = r.ts.URL
	return r
}

func (r *remoteServer) authorizations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for a := range r.auths {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

func startGateway(t testing.TB, config string, opts ...gateway.Option) *gateway.Gateway {
	t.Helper()
	cfg, err := gateway.ParseConfig([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]gateway.Option{gateway.Backoff(5*time.Millisecond, 50*time.Millisecond), gateway.HealthCheck(20 * time.Millisecond)}, opts...)
	g, err := gateway.New(t.Context(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// until waits, on the server's broadcasts, until cond holds.
func until(t *testing.T, srv *sake.Server, what string, cond func() bool) {
	t.Helper()
	changed := make(chan struct{}, 1)
	stop := srv.Watch(func(sake.Broadcast) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer stop()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("never: %s", what)
		}
	}
}

func names(t *testing.T, c *saketest.Client) []string {
	t.Helper()
	tools, err := c.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ti := range tools {
		out = append(out, ti.Name)
	}
	slices.Sort(out)
	return out
}

func stdioEntry() string {
	return fmt.Sprintf(`{"command": %q, "args": ["-test.run=^$"], "env": {%q: "1"}}`, os.Args[0], stdioEnv)
}

func TestGatewayMountsEveryEntry(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"alpha": {"url": %q, "headers": {"Authorization": "Bearer alpha-token"}},
		"beta": {"url": %q, "namespace": ""},
		"qs": %s
	}}`, alpha.url+"/mcp", beta.url+"/mcp", stdioEntry()), gateway.HealthCheck(time.Hour))
	for _, s := range g.Status() {
		if !s.Connected {
			t.Fatalf("%s is not connected: %v", s.Key, s.Err)
		}
	}
	// Lists are answered from what the gateway keeps.
	lister := saketest.Connect(t, g.Server())
	before := alpha.calls.Load()
	for range 3 {
		names(t, lister)
	}
	if after := alpha.calls.Load(); after != before {
		t.Errorf("three tools/list of the gateway sent alpha %d requests", after-before)
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		if got := names(t, c); !slices.Equal(got, []string{"alpha_echo", "alpha_hang", "echo", "hang", "qs_crash", "qs_getenv", "qs_greet"}) {
			t.Fatalf("tools = %v", got)
		}
		for tool, want := range map[string]string{"alpha_echo": "echo from alpha", "echo": "echo from beta", "qs_greet": "hello from stdio"} {
			if res, err := c.CallTool(tool, nil); err != nil || res.Text() != want {
				t.Errorf("%s = %v, %v", tool, res, err)
			}
		}
	})

	// Over HTTP, the caller's token stays with the gateway.
	ph := plug.New(g.Server())
	ts := httptest.NewServer(ph)
	defer func() { ts.Close(); ph.Close() }()
	caller, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil, client.BearerToken("caller-secret")))
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	if res, err := caller.CallTool(t.Context(), "alpha_echo", nil); err != nil || res.Text() != "echo from alpha" {
		t.Fatalf("alpha_echo over HTTP = %v, %v", res, err)
	}
	if got := alpha.authorizations(); !slices.Equal(got, []string{"Bearer alpha-token"}) {
		t.Errorf("alpha was sent Authorization %q", got)
	}
	if got := beta.authorizations(); !slices.Equal(got, []string{""}) {
		t.Errorf("beta was sent Authorization %q", got)
	}
}

func TestGatewayRemoteDiesAndComesBack(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}, "beta": {"url": %q}}}`, alpha.url+"/mcp", beta.url+"/mcp"))
	c := saketest.Connect(t, g.Server())
	has := func(tool string) func() bool {
		return func() bool { return slices.Contains(names(t, c), tool) }
	}

	// A call in flight when the remote dies gets a clear error.
	errs := make(chan error, 1)
	go func() {
		_, err := c.CallTool("alpha_hang", nil)
		errs <- err
	}()
	<-alpha.entered
	alpha.down.Store(true)
	alpha.ts.CloseClientConnections()
	if err := <-errs; err == nil {
		t.Fatal("a call to a remote that died succeeded")
	}
	until(t, g.Server(), "alpha's tools leave", func() bool { return !has("alpha_echo")() })
	if _, err := c.CallTool("alpha_echo", nil); err == nil {
		t.Fatal("a dead remote's tool answered")
	}
	if res, err := c.CallTool("beta_echo", nil); err != nil || res.Text() != "echo from beta" {
		t.Fatalf("beta while alpha is down = %v, %v", res, err)
	}
	alpha.down.Store(false)
	until(t, g.Server(), "alpha's tools come back", has("alpha_echo"))
	if res, err := c.CallTool("alpha_echo", nil); err != nil || res.Text() != "echo from alpha" {
		t.Fatalf("alpha back = %v, %v", res, err)
	}
	if s := g.Status()[0]; s.Key != "alpha" || !s.Connected || s.Restarts == 0 {
		t.Errorf("alpha's status = %+v", s)
	}
}

func TestGatewayRestartsAStdioServer(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"qs": %s}}`, stdioEntry()))
	c := saketest.Connect(t, g.Server())
	if _, err := c.CallTool("qs_crash", nil); err == nil {
		t.Fatal("a call whose server exited succeeded")
	}
	until(t, g.Server(), "qs restarted", func() bool { s := g.Status()[0]; return s.Connected && s.Restarts > 0 })
	if res, err := c.CallTool("qs_greet", nil); err != nil || res.Text() != "hello from stdio" {
		t.Fatalf("qs_greet after the restart = %v, %v", res, err)
	}
}

func TestGatewayBoundsEachRemote(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}, "beta": {"url": %q}}}`, alpha.url+"/mcp", beta.url+"/mcp"),
		gateway.ProxyOptions(proxy.MaxInFlight(1), proxy.CallTimeout(time.Hour)))
	c := saketest.Connect(t, g.Server())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	errs := make(chan error, 1)
	go func() {
		_, err := c.WithContext(ctx).CallTool("alpha_hang", nil)
		errs <- err
	}()
	<-alpha.entered
	// alpha has its one call in flight: another is refused at once, and
	// beta's callers are not held.
	if _, err := c.CallTool("alpha_echo", nil); err == nil || !strings.Contains(err.Error(), "in flight") {
		t.Fatalf("a call past alpha's bound = %v", err)
	}
	if res, err := c.CallTool("beta_echo", nil); err != nil || res.Text() != "echo from beta" {
		t.Fatalf("beta while alpha is full = %v, %v", res, err)
	}
	cancel()
	<-errs
}

func TestGatewayTimesOutAHangingRemote(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}, "beta": {"url": %q}}}`, alpha.url+"/mcp", beta.url+"/mcp"),
		gateway.ProxyOptions(proxy.CallTimeout(200*time.Millisecond)))
	c := saketest.Connect(t, g.Server())
	_, err := c.CallTool("alpha_hang", nil)
	var e *sake.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "did not answer within") {
		t.Fatalf("a hanging remote = %v", err)
	}
	if res, err := c.CallTool("beta_echo", nil); err != nil || res.Text() != "echo from beta" {
		t.Fatalf("beta = %v, %v", res, err)
	}
}

func TestGatewayRefusesWrongConfigs(t *testing.T) {
	t.Parallel()
	if _, err := gateway.New(t.Context(), &gateway.Config{}); err == nil {
		t.Error("an empty configuration was accepted")
	}
	ns := "same"
	cfg := &gateway.Config{Servers: map[string]gateway.Entry{
		"a": {Command: "x", Namespace: &ns},
		"b": {Command: "y", Namespace: &ns},
	}}
	if _, err := gateway.New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "both mounted") {
		t.Errorf("two entries under one namespace = %v", err)
	}
}

// TestGatewayNoticesAStdioExitAtOnce: a child that exits is noticed on
// its exit, not at the next ping (there is none within the test): the
// call in flight gets an error naming the entry, its tools leave the
// lists, and it is restarted and initialized again.
func TestGatewayNoticesAStdioExitAtOnce(t *testing.T) {
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"qs": %s}}`, stdioEntry()), gateway.HealthCheck(time.Hour))
	left := make(chan struct{})
	var once sync.Once
	stop := g.Server().Watch(func(sake.Broadcast) {
		if !g.Status()[0].Connected {
			once.Do(func() { close(left) })
		}
	})
	defer stop()
	c := saketest.Connect(t, g.Server())
	_, err := c.CallTool("qs_crash", nil)
	var e *sake.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, `"qs"`) || !strings.Contains(e.Message, "stopped") {
		t.Fatalf("a call whose server exited = %v; want an error naming the entry", err)
	}
	select {
	case <-left:
	case <-time.After(waitFor):
		t.Fatal("the exit was not noticed (no list_changed while the child was down)")
	}
	until(t, g.Server(), "qs restarted", func() bool { s := g.Status()[0]; return s.Connected && s.Restarts > 0 })
	if res, err := c.CallTool("qs_greet", nil); err != nil || res.Text() != "hello from stdio" {
		t.Fatalf("qs_greet after the restart = %v, %v", res, err)
	}
}
