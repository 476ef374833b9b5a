package main

import (
	"bufio"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptClient runs the TypeScript SDK's client with its OAuth
// provider against the application, signing in and consenting in headless
// Chromium when the client opens an authorization URL: discovery from the
// 401, dynamic registration, PKCE, consent, tool calls, a refresh, and
// step-up with the one-time code after an
// insufficient_user_authentication challenge. scripts/oauth-conformance.sh
// installs the SDK and sets SAKE_TS_SDK and SAKE_CONFORMANCE_NODE.
func TestTypeScriptClient(t *testing.T) {
	node, sdk := os.Getenv("SAKE_CONFORMANCE_NODE"), os.Getenv("SAKE_TS_SDK")
	if node == "" || sdk == "" {
		t.Skip("the TypeScript SDK is not set up: run scripts/oauth-conformance.sh")
	}
	ctx := chromium(t, 5*time.Minute)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app, err := NewApp("http://"+ln.Addr().String(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: app.Router, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	// The script must sit next to the SDK's node_modules to import it.
	src, err := os.ReadFile(filepath.Join("testdata", "tsclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(sdk, "sake-tsclient-"+filepath.Base(t.TempDir())+".mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(script) })

	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = append(os.Environ(), "MCP_URL="+app.Resource)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		t.Log(line)
		switch {
		case strings.HasPrefix(line, "AUTHORIZE "):
			signInAndAllow(t, ctx, strings.TrimPrefix(line, "AUTHORIZE "), "", true)
		case strings.HasPrefix(line, "AUTHORIZE-MFA "):
			// Consent is remembered; the login asks for the second factor.
			signInAndAllow(t, ctx, strings.TrimPrefix(line, "AUTHORIZE-MFA "), DemoCode, false)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
	}
	out := strings.Join(lines, "\n")
	for _, want := range []string{"REGISTERED ", "Noted (1 notes)", "from TypeScript", "REFRESHED ", "CHALLENGED " + MFA,
		"Deleted 1 notes", "acr=" + MFA, "DONE"} {
		if !strings.Contains(out, want) {
			t.Errorf("the client's output lacks %q", want)
		}
	}
}
