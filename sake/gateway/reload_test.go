package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/saketest"
)

func parse(t *testing.T, config string) *gateway.Config {
	t.Helper()
	cfg, err := gateway.ParseConfig([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReloadTouchesOnlyWhatChanged: a reload starts the new entry,
// restarts the changed one and stops the removed one, while a call in
// flight to the unchanged entry completes and that entry is never
// restarted.
func TestReloadTouchesOnlyWhatChanged(t *testing.T) {
	alpha, beta, gamma, delta := newRemote(t, "alpha"), newRemote(t, "beta"), newRemote(t, "gamma"), newRemote(t, "delta")
	var mu sync.Mutex
	restarted := map[string]int{}
	hooks := gateway.Observe(gateway.Hooks{Restarted: func(s string) { mu.Lock(); restarted[s]++; mu.Unlock() }})
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"alpha": {"url": %q},
		"beta": {"url": %q, "headers": {"Authorization": "Bearer old-token"}},
		"delta": {"url": %q}}}`, alpha.url+"/mcp", beta.url+"/mcp", delta.url+"/mcp"), hooks, gateway.HealthCheck(time.Hour))
	c := saketest.Connect(t, g.Server())

	type result struct {
		text string
		err  error
	}
	inFlight := make(chan result, 1)
	go func() {
		res, err := c.CallTool("alpha_hang", nil)
		if err != nil {
			inFlight <- result{err: err}
			return
		}
		inFlight <- result{text: res.Text()}
	}()
	<-alpha.entered

	err := g.Apply(parse(t, fmt.Sprintf(`{"mcpServers": {
		"alpha": {"url": %q},
		"beta": {"url": %q, "headers": {"Authorization": "Bearer new-token"}},
		"gamma": {"url": %q},
		"delta": {"url": %q, "disabled": true}}}`, alpha.url+"/mcp", beta.url+"/mcp", gamma.url+"/mcp", delta.url+"/mcp")))
	if err != nil {
		t.Fatal(err)
	}
	until(t, g.Server(), "gamma and the new beta are mounted, delta is gone", func() bool {
		got := names(t, c)
		return slices.Contains(got, "gamma_echo") && slices.Contains(got, "beta_echo") && !slices.Contains(got, "delta_echo")
	})
	alpha.release <- struct{}{}
	if r := <-inFlight; r.err != nil || r.text != "released" {
		t.Fatalf("the call in flight to the unchanged entry = %q, %v", r.text, r.err)
	}
	if res, err := c.CallTool("beta_echo", nil); err != nil || res.Text() != "echo from beta" {
		t.Fatalf("beta_echo after the reload = %v, %v", res, err)
	}
	if got := beta.authorizations(); !slices.Contains(got, "Bearer new-token") {
		t.Errorf("the changed entry was not reconnected with its new headers: %q", got)
	}
	var keys []string
	for _, s := range g.Status() {
		keys = append(keys, s.Key)
		if s.Key == "alpha" && (s.Restarts != 0 || !s.Connected) {
			t.Errorf("alpha = %+v, want connected and never restarted", s)
		}
	}
	if !slices.Equal(keys, []string{"alpha", "beta", "gamma"}) {
		t.Errorf("entries after the reload = %v", keys)
	}
	mu.Lock()
	defer mu.Unlock()
	if restarted["alpha"] != 0 {
		t.Errorf("alpha restarted %d times", restarted["alpha"])
	}
}

// TestReloadLeavesAnUnchangedChildRunning: a reload that adds an entry
// and edits another keeps the stdio child of an unchanged entry: the
// same process answers before and after.
func TestReloadLeavesAnUnchangedChildRunning(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	child := fmt.Sprintf(`{"command": %q, "args": ["-test.run=^$"], "env": {%q: "pid"}}`, exe, rawEnv)
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {"child": %s, "alpha": {"url": %q}}}`, child, alpha.url+"/mcp"), gateway.HealthCheck(time.Hour))
	c := saketest.Connect(t, g.Server())
	pid := func() string {
		t.Helper()
		res, err := c.CallTool("child_pid", nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	before := pid()
	if err := g.Apply(parse(t, fmt.Sprintf(`{"mcpServers": {"child": %s, "alpha": {"url": %q, "headers": {"X-Edited": "yes"}}, "beta": {"url": %q}}}`,
		child, alpha.url+"/mcp", beta.url+"/mcp"))); err != nil {
		t.Fatal(err)
	}
	until(t, g.Server(), "beta is mounted", func() bool { return slices.Contains(names(t, c), "beta_echo") })
	if after := pid(); after != before {
		t.Fatalf("the unchanged stdio entry was restarted: pid %s, then %s", before, after)
	}
}

// TestReloadRefusesABadFile: a file that does not parse, or does not
// validate, leaves the gateway as it was, and the health endpoint shows
// why until a good file is applied.
func TestReloadRefusesABadFile(t *testing.T) {
	alpha := newRemote(t, "alpha")
	good := fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}}}`, alpha.url+"/mcp")
	path := filepath.Join(t.TempDir(), "mcp.json")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g := startGateway(t, good, gateway.HealthCheck(time.Hour))
	c := saketest.Connect(t, g.Server())
	t.Setenv("GATEWAY_TEST_TOKEN", "from-the-env-secret")
	for _, bad := range []string{
		`{"mcpServers": {"alpha": {"url": "ftp://user:hunter2-pass@example.com/?token=${env:GATEWAY_TEST_TOKEN}"}}}`,
		`{"mcpServers": {"alpha": `,                               // not JSON
		`{"mcpServers": {"alpha": {"url": "ftp://example.com"}}}`, // not valid
		fmt.Sprintf(`{"mcpServers": {"a": {"url": %q, "namespace": "x"}, "b": {"url": %q, "namespace": "x"}}}`, alpha.url, alpha.url),
	} {
		write(bad)
		if err := g.ReloadFile(path); err == nil {
			t.Fatalf("%s was applied", bad)
		}
		if got := names(t, c); !slices.Equal(got, []string{"alpha_echo", "alpha_hang"}) {
			t.Fatalf("after a refused reload the tools are %v", got)
		}
		if s := g.Status(); len(s) != 1 || !s[0].Connected || s[0].Restarts != 0 {
			t.Fatalf("after a refused reload: %+v", s)
		}
		body := getHealth(t, g.HealthHandler(), http.StatusOK)
		if !strings.Contains(body.ConfigError, "not reloaded") {
			t.Errorf("health after a refused reload: configError %q", body.ConfigError)
		}
		for _, secret := range []string{"hunter2-pass", "from-the-env-secret"} {
			if strings.Contains(body.ConfigError, secret) || strings.Contains(g.ReloadError().Error(), secret) {
				t.Errorf("the refused file's secret %q is shown: %q", secret, body.ConfigError)
			}
		}
	}
	write(good)
	if err := g.ReloadFile(path); err != nil {
		t.Fatal(err)
	}
	if body := getHealth(t, g.HealthHandler(), http.StatusOK); body.ConfigError != "" {
		t.Errorf("configError after a good reload: %q", body.ConfigError)
	}
}

// TestWatchConfigAppliesAnEdit: an edit of the file is applied without
// a call, and a "disabled" toggled at run time stops and starts the
// entry.
func TestWatchConfigAppliesAnEdit(t *testing.T) {
	alpha, beta := newRemote(t, "alpha"), newRemote(t, "beta")
	path := filepath.Join(t.TempDir(), "mcp.json")
	config := func(betaDisabled bool) string {
		return fmt.Sprintf(`{"mcpServers": {"alpha": {"url": %q}, "beta": {"url": %q, "disabled": %v}}}`, alpha.url+"/mcp", beta.url+"/mcp", betaDisabled)
	}
	write := func(s string) {
		// Written whole and renamed into place, as editors do.
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(config(true))
	reloads := make(chan error, 16)
	g := startGateway(t, config(true), gateway.Observe(gateway.Hooks{Reloaded: func(err error) { reloads <- err }}))
	watching := make(chan error, 1)
	go func() { watching <- g.WatchConfig(t.Context(), path) }()
	t.Cleanup(func() {
		if err := <-watching; err != nil {
			t.Error(err)
		}
	})
	c := saketest.Connect(t, g.Server())
	if slices.Contains(names(t, c), "beta_echo") {
		t.Fatal("a disabled entry is served")
	}
	// The watcher reads the file once as it begins, then on each change.
	for range 2 {
		select {
		case err := <-reloads:
			if err != nil {
				t.Fatal(err)
			}
		case err := <-watching:
			t.Fatalf("the watcher ended: %v", err)
		}
		write(config(false))
	}
	until(t, g.Server(), "beta is enabled", func() bool { return slices.Contains(names(t, c), "beta_echo") })
	write(config(true))
	until(t, g.Server(), "beta is disabled again", func() bool { return !slices.Contains(names(t, c), "beta_echo") })
}

type healthJSON struct {
	Ready       bool   `json:"ready"`
	ConfigError string `json:"configError"`
	Servers     []struct {
		Key       string   `json:"key"`
		State     string   `json:"state"`
		Required  bool     `json:"required"`
		LastError string   `json:"lastError"`
		Restarts  int      `json:"restarts"`
		RoundTrip *float64 `json:"lastRoundTripMs"`
		Calls     int64    `json:"calls"`
		Errors    int64    `json:"errors"`
		LeftOut   []string `json:"leftOut"`
	} `json:"servers"`
}

func getHealth(t *testing.T, h http.Handler, wantCode int) healthJSON {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != wantCode {
		t.Fatalf("status %d, want %d: %s", rec.Code, wantCode, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var b healthJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	return b
}
