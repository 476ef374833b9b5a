package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
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

// TestAuthorizationConformance runs the official conformance suite's
// authorization scenarios (metadata and authorization code grant) against
// this application, signing in and consenting in headless Chromium when
// the suite prints the authorization URL. scripts/oauth-conformance.sh
// installs the suite and sets SAKE_CONFORMANCE_NODE and
// SAKE_CONFORMANCE_SUITE.
func TestAuthorizationConformance(t *testing.T) {
	node, suite := os.Getenv("SAKE_CONFORMANCE_NODE"), os.Getenv("SAKE_CONFORMANCE_SUITE")
	if node == "" || suite == "" {
		t.Skip("the conformance suite is not set up: run scripts/oauth-conformance.sh")
	}
	ctx := chromium(t, 5*time.Minute)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	app, err := NewApp(issuer, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: app.Router, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	// The suite's callback port: free now, taken by the suite next.
	cbl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cbPort := cbl.Addr().(*net.TCPAddr).Port
	_ = cbl.Close()

	out := t.TempDir()
	if keep := os.Getenv("SAKE_CONFORMANCE_OUT"); keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err = os.MkdirTemp(keep, "run-"); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(ctx, node, suite, "authorization", "--url", issuer, "--client-id", DemoClientID,
		"--resource", app.Resource, "-p", fmt.Sprint(cbPort), "-o", out)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	done := make(chan struct{})
	var transcript strings.Builder
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			transcript.WriteString(line + "\n")
			if strings.HasPrefix(line, issuer+"/oauth/authorize?") {
				select {
				case urls <- line:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		signInAndAllow(t, ctx, u, "", true)
	case <-done:
		t.Logf("the suite printed no authorization URL")
	case <-ctx.Done():
		t.Fatal("timed out waiting for the suite")
	}
	<-done
	err = cmd.Wait()
	t.Log(transcript.String())
	passed, failed := scenarioCounts(t, out)
	if f := os.Getenv("SAKE_OAUTH_CONFORMANCE_COUNTS"); f != "" {
		_ = os.WriteFile(f, []byte(fmt.Sprintf("%d %d\n", passed, failed)), 0o644)
	}
	if err != nil || failed > 0 || passed != 2 {
		t.Fatalf("authorization scenarios: %d passed, %d failed (suite exit: %v)", passed, failed, err)
	}
}

// scenarioCounts reads the suite's checks.json files: a scenario passes
// when it has checks and none failed.
func scenarioCounts(t *testing.T, dir string) (passed, failed int) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var checks []struct {
			ID, Status, ErrorMessage string
		}
		if json.Unmarshal(b, &checks) != nil || len(checks) == 0 {
			failed++
			return nil
		}
		ok := true
		for _, c := range checks {
			if c.Status == "FAILURE" {
				ok = false
				t.Logf("%s: %s FAILURE %s", filepath.Base(filepath.Dir(path)), c.ID, c.ErrorMessage)
			}
		}
		if ok {
			passed++
		} else {
			failed++
		}
		return nil
	})
	return passed, failed
}
