package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
)

// gatewayConfig writes an mcpServers file with the fixture as a stdio
// entry, required, and returns its path.
func gatewayConfig(t *testing.T) string {
	t.Helper()
	cmd := fixtureCommand(t)
	path := filepath.Join(t.TempDir(), "mcp.json")
	body := fmt.Sprintf(`{"mcpServers": {"fixture": {"command": %q, "args": [%q], "env": {%q: "1"}, "required": true}}}`, cmd[0], cmd[1], serveEnv)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGatewayCommandServesHTTP: sake gateway -http serves the file's
// servers at /mcp, with /readyz and /healthz, and stops on its context.
func TestGatewayCommandServesHTTP(t *testing.T) {
	t.Parallel()
	config := gatewayConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, exited := startGatewayCommand(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-log-format", "json")

	c, err := client.Connect(ctx, client.HTTP(base+"/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "fixture_echo", json.RawMessage(`{"text":"through the gateway"}`))
	if err != nil || res.Text() != "through the gateway" {
		t.Fatalf("fixture_echo = %v, %v", res, err)
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + probe)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Ready   bool `json:"ready"`
			Servers []struct {
				Key, State string
				Calls      int
			} `json:"servers"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !body.Ready || len(body.Servers) != 1 || body.Servers[0].State != "up" || body.Servers[0].Calls != 1 {
			t.Errorf("%s: %d %+v %v", probe, resp.StatusCode, body, err)
		}
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d after the context ended", code)
	}
}

// startGatewayCommand runs sake gateway with args until ctx ends and
// returns the URL it serves (without /mcp) once its log says so.
func startGatewayCommand(t *testing.T, ctx context.Context, args ...string) (string, <-chan int) {
	base, _, exited := startGatewayCommandProbes(t, ctx, args...)
	return base, exited
}

// startGatewayCommandProbes is startGatewayCommand that also returns the
// URL of the probes' /healthz when -probes serves them apart.
func startGatewayCommandProbes(t *testing.T, ctx context.Context, args ...string) (string, string, <-chan int) {
	t.Helper()
	base, healthz, exited, _ := startGatewayCommandLogs(t, ctx, args...)
	return base, healthz, exited
}

// startGatewayCommandLogs is startGatewayCommandProbes that also returns
// the messages the gateway logs once it serves (those that come while
// nobody reads are dropped past 256).
func startGatewayCommandLogs(t *testing.T, ctx context.Context, args ...string) (string, string, <-chan int, <-chan string) {
	t.Helper()
	return startGatewayCommandEnv(t, ctx, nil, args...)
}

// startGatewayCommandEnv is startGatewayCommandLogs with the environment
// variables vars.
func startGatewayCommandEnv(t *testing.T, ctx context.Context, vars map[string]string, args ...string) (string, string, <-chan int, <-chan string) {
	t.Helper()
	pr, pw := io.Pipe()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: pw,
		getenv: func(k string) string { return vars[k] }, goos: runtime.GOOS}
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, append([]string{"gateway"}, args...), e)
		pw.Close()
	}()
	var base, healthz string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var rec struct{ Msg, URL, Healthz string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a log record that is not JSON: %s", sc.Text())
		}
		if rec.Msg == "serving the probes" {
			healthz = rec.Healthz
		}
		if rec.Msg == "serving" {
			base = strings.TrimSuffix(rec.URL, "/mcp")
			break
		}
	}
	if base == "" {
		t.Fatalf("the gateway never served: exit %d", <-exited)
	}
	logs := make(chan string, 256)
	go func() {
		for sc.Scan() {
			var rec struct{ Msg string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				select {
				case logs <- rec.Msg:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	return base, healthz, exited, logs
}

// TestGatewayCommandProbesApart: with -probes the probes are served on
// their own address and not on the MCP one.
func TestGatewayCommandProbesApart(t *testing.T) {
	t.Parallel()
	config := gatewayConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, healthz, exited := startGatewayCommandProbes(t, ctx, "-config", config, "-http", "127.0.0.1:0", "-probes", "127.0.0.1:0", "-log-format", "json")
	for url, want := range map[string]int{healthz: http.StatusOK, strings.TrimSuffix(healthz, "/healthz") + "/readyz": http.StatusOK,
		base + "/healthz": http.StatusNotFound, base + "/readyz": http.StatusNotFound} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", url, resp.StatusCode, want)
		}
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}

// TestGatewayCommandStartsFromTheReadme: the README's mcpServers example
// starts the gateway with one command, which serves its probes at once
// while the entries connect.
func TestGatewayCommandStartsFromTheReadme(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	at := strings.Index(text, "`sake gateway` serves the servers")
	if at < 0 {
		t.Fatal("the README shows no sake gateway example")
	}
	block := text[at:]
	start := strings.Index(block, "```json\n") + len("```json\n")
	block = block[start:]
	block = block[:strings.Index(block, "```")]
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, exited := startGatewayCommand(t, ctx, "-config", path, "-http", "127.0.0.1:0", "-log-format", "json", "-start-timeout", "1ms")
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Servers []struct{ Key string } }
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(body.Servers) != 2 || body.Servers[0].Key != "everything" || body.Servers[1].Key != "qs" {
		t.Fatalf("/healthz from the README's file: %d %+v %v", resp.StatusCode, body, err)
	}
	cancel()
	if code := <-exited; code != exitOK {
		t.Errorf("exit code %d", code)
	}
}

// TestGatewayCommandServesStdio: without -http the gateway speaks on
// stdin and stdout.
func TestGatewayCommandServesStdio(t *testing.T) {
	t.Parallel()
	config := gatewayConfig(t)
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}` + "\n"
	r := sakeRun(t, req, nil, "gateway", "-config", config, "-stdio", "-watch=false")
	if r.code != exitOK || !strings.Contains(r.stdout, `"fixture_echo"`) {
		t.Fatalf("stdio gateway: %+v", r)
	}
}

func TestGatewayCommandRefusesBadFlags(t *testing.T) {
	t.Parallel()
	config := gatewayConfig(t)
	for _, args := range [][]string{
		{"-stdio", "-http", "127.0.0.1:0"},
		{"-log-format", "xml"},
		{"-log-level", "loud"},
		{"-http", "127.0.0.1:0", "-tls-cert", "c.pem"},
		{"-tls-cert", "c.pem", "-tls-key", "k.pem"},
		{"-http", "127.0.0.1:0", "-path", "/readyz"},
		{"-probes", "127.0.0.1:0"},
		{"extra"},
	} {
		r := sakeRun(t, "", nil, append([]string{"gateway", "-config", config}, args...)...)
		if r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, r.code, exitUsage, r.stderr)
		}
	}
	r := sakeRun(t, "", nil, "gateway", "-config", filepath.Join(t.TempDir(), "missing.json"), "-stdio")
	if r.code != exitFail || !strings.Contains(r.stderr, "missing.json") {
		t.Errorf("a missing file: %+v", r)
	}
}

// TestGatewayApprove: sake gateway approve moves the withheld
// definitions of the lock file beside the configuration to the approved
// ones, and fails when nothing matches.
func TestGatewayApprove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	lock := filepath.Join(dir, "mcp.lock.json")
	if err := os.WriteFile(lock, []byte(`{"servers": {"dict": {"tools": {"lookup": "sha256:old", "other": "sha256:o"}, "pending": {"lookup": "sha256:new"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := sakeRun(t, "", nil, "gateway", "approve", "-config", config, "dict/other"); r.code != exitFail || !strings.Contains(r.stderr, "nothing withheld") {
		t.Fatalf("approving what is not withheld: %+v", r)
	}
	r := sakeRun(t, "", nil, "gateway", "approve", "-config", config, "dict")
	if r.code != exitOK || r.stdout != "approved dict/lookup\n" {
		t.Fatalf("approve: %+v", r)
	}
	raw, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Servers map[string]struct {
			Tools   map[string]string
			Pending map[string]string
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil || d.Servers["dict"].Tools["lookup"] != "sha256:new" || len(d.Servers["dict"].Pending) != 0 {
		t.Fatalf("lock after approve: %s %v", raw, err)
	}
	if r := sakeRun(t, "", nil, "gateway", "approve", "a", "b"); r.code != exitUsage {
		t.Errorf("two arguments: %+v", r)
	}
}

// TestGatewayCommandRefusesAPerUserEntryItCannotServe: a per-user entry
// needs -http, -public-url, an "auth" section and the vault's key; the
// command says which is missing and does not start.
func TestGatewayCommandRefusesAPerUserEntryItCannotServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	entry := `"mcpServers": {"accounts": {"url": "http://127.0.0.1:9/mcp", "oauth": {"perUser": true}}}`
	anonymous := write("anonymous.json", `{`+entry+`}`)
	signed := write("signed.json", `{"auth": {"issuer": "https://idp.example.com", "audience": "https://gw.example.com/mcp", "jwksUri": "https://idp.example.com/keys"}, `+entry+`}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-config", signed, "-stdio"}, "-http"},
		{[]string{"-config", signed, "-http", "127.0.0.1:0"}, "-public-url"},
		{[]string{"-config", anonymous, "-http", "127.0.0.1:0", "-public-url", "http://127.0.0.1:1"}, `"auth"`},
		{[]string{"-config", signed, "-http", "127.0.0.1:0", "-public-url", "http://127.0.0.1:1"}, "SAKE_GATEWAY_TOKEN_KEY"},
	} {
		r := sakeRun(t, "", nil, append([]string{"gateway"}, tc.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want a failure naming %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
