package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineWriter hands each line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
	all   strings.Builder
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		select {
		case w.lines <- strings.TrimRight(line, "\n"):
		default: // nobody waits for it
		}
	}
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// await waits for a line containing want, failing the test after a bound
// that is only there to end a hung test.
func (w *lineWriter) await(t *testing.T, want string) {
	t.Helper()
	bound := time.After(3 * time.Minute)
	for {
		select {
		case l := <-w.lines:
			if strings.Contains(l, want) {
				return
			}
		case <-bound:
			t.Fatalf("no line with %q; the output:\n%s", want, w.String())
		}
	}
}

func TestDevRebuildsOnChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module several times")
	}
	t.Parallel()
	checkoutDir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "devsrv")
	if r := sakeRun(t, "", nil, "new", "-replace", checkoutDir, dir); r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + addr + "/mcp"
	out := &lineWriter{lines: make(chan string, 100)}
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: io.Discard, getenv: os.Getenv, goos: runtime.GOOS, lookPath: exec.LookPath}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"dev", "-http", addr, "-interval", "50ms", dir}, e) }()
	defer func() {
		cancel()
		<-done
	}()
	out.await(t, "sake inspect "+url)
	for _, want := range []string{"claude mcp add --transport http devsrv " + url, "npx @modelcontextprotocol/inspector"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the banner lacks %q:\n%s", want, out.String())
		}
	}
	greet := func() string {
		r := sakeRun(t, "", nil, "call", url, "greet", `{"name":"Rui"}`)
		return r.stdout + r.stderr
	}
	if got := greet(); got != "Hello, Rui!\n" {
		t.Fatalf("before the change: %q", got)
	}
	server := filepath.Join(dir, "server.go")
	src, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(s string) {
		if err := os.WriteFile(server, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(strings.Replace(string(src), `"Hello, "`, `"Hi, "`, 1))
	out.await(t, "sake dev: restarted")
	if got := greet(); got != "Hi, Rui!\n" {
		t.Errorf("after the change: %q", got)
	}
	// A change that does not build is shown; the last build keeps serving.
	edit(string(src) + "\nthis is not Go\n")
	out.await(t, "the build failed; the previous build keeps serving")
	if got := greet(); got != "Hi, Rui!\n" {
		t.Errorf("after a broken change: %q", got)
	}
	// A test file is not watched.
	if err := os.WriteFile(filepath.Join(dir, "extra_test.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit(string(src))
	out.await(t, "sake dev: restarted")
	if got := greet(); got != "Hello, Rui!\n" {
		t.Errorf("after the fix: %q", got)
	}
	// A build whose server exits before it listens (an error in its
	// construction) is shown; the last good build keeps serving, and no
	// hint about -http-flag misleads.
	edit(string(src) + "\nfunc init() { panic(\"the server cannot be built\") }\n")
	out.await(t, "the new server exited before it listened (its standard error is above); the previous build keeps serving")
	if got := greet(); got != "Hello, Rui!\n" {
		t.Errorf("after a change whose server exits: %q", got)
	}
	if strings.Contains(out.String(), "-http-flag") {
		t.Errorf("the hint about -http-flag is shown for a server that exited:\n%s", out.String())
	}
	// A doc comment changed without go generate: sake_gen.go is stale.
	edit(strings.Replace(string(src), "// Greet greets someone by name.", "// Greet says hello to someone.", 1))
	out.await(t, "sake_gen.go is out of date with the doc comments")
	out.await(t, "sake dev: restarted")
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("dev ended with %d:\n%s", code, out.String())
	}
	done <- 0
	if !strings.Contains(out.String(), "sake dev: stopped") {
		t.Errorf("no stop line:\n%s", out.String())
	}
	// The server stopped with dev.
	if r := sakeRun(t, "", nil, "inspect", "-timeout", "5s", url); r.code != exitFail {
		t.Errorf("the server still answers after dev stopped: %+v", r)
	}
}

func TestDevRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"dev", "a", "b"}, exitUsage, "name one package"},
		{[]string{"dev", "-interval", "0s"}, exitUsage, "-interval must be positive"},
		{[]string{"dev", "-http", "127.0.0.1:1", filepath.Join(t.TempDir(), "nothing")}, exitFail, "the build failed"},
	} {
		r := sakeRun(t, "", nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
}
