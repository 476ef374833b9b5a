package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/stdio"
)

// serveEnv makes the test binary serve the test fixture on stdio: the
// tests start it as a server command.
const serveEnv = "SAKE_CMD_TEST_SERVE"

var binDir string // the examples built for the tests

func TestMain(m *testing.M) {
	if os.Getenv(commandEnv) != "" {
		// The sake command, as a process of its own; what it starts
		// serves the fixture.
		os.Unsetenv(commandEnv)
		main()
	}
	if os.Getenv(serveEnv) != "" {
		if err := stdio.ServeStdio(sake.MustNew(&fixture{}, sake.Name("fixture", "0.1.0"))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "sake-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// The test binary started as a command serves the fixture.
	os.Setenv(serveEnv, "1")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixtureCommand is the command line that serves the fixture on stdio.
func fixtureCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-test.run=^$"}
}

// result is what one run of the command gave.
type result struct {
	stdout, stderr string
	code           int
}

// sakeRun runs the command in-process with args, stdin and environment
// variables vars (nothing else of the process's environment).
func sakeRun(t *testing.T, stdin string, vars map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv:   func(k string) string { return vars[k] },
		goos:     runtime.GOOS,
		lookPath: exec.LookPath,
		userConfigDir: func() (string, error) {
			if d := vars["XDG_CONFIG_HOME"]; d != "" {
				return d, nil
			}
			return "", errors.New("the test gives no configuration directory")
		},
	}
	if p, ok := vars["PATH"]; ok {
		e.lookPath = func(name string) (string, error) { return lookIn(p, name) }
	}
	if g := vars["GOOS"]; g != "" {
		e.goos = g
	}
	code := run(context.Background(), args, e)
	return result{out.String(), errb.String(), code}
}

// lookIn finds an executable in the directories of path (as the PATH
// variable lists them), for tests that give the command their own PATH.
func lookIn(path, name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

var builds sync.Map // name -> *buildOnce

type buildOnce struct {
	once sync.Once
	path string
	err  error
}

// buildExample builds examples/name once for all the tests and returns
// the binary's path.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(name, &buildOnce{})
	b := v.(*buildOnce)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, name)
		cmd := exec.Command("go", "build", "-o", b.path, "../../examples/"+name)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", name, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// serveEverythingHTTP starts examples/everything on a free loopback port
// and returns its URL; the server stops when the test ends.
func serveEverythingHTTP(t *testing.T) string {
	t.Helper()
	bin := buildExample(t, "everything")
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The server logs its URL once it listens.
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`url=(http://\S+/mcp)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return m[1]
		}
	}
	t.Fatalf("everything -http exited without serving: %v", sc.Err())
	return ""
}

// serveFixtureHTTP serves the test fixture over Streamable HTTP in the
// test process.
func serveFixtureHTTP(t *testing.T) string {
	t.Helper()
	h := plug.New(sake.MustNew(&fixture{}, sake.Name("fixture", "0.1.0")))
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return ts.URL
}

func TestNoArguments(t *testing.T) {
	t.Parallel()
	r := sakeRun(t, "", nil)
	if r.code != exitUsage || !strings.Contains(r.stderr, "inspect") || !strings.Contains(r.stderr, "Usage") {
		t.Errorf("no arguments: %+v", r)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	r := sakeRun(t, "", nil, "inspekt")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown command "inspekt"`) {
		t.Errorf("unknown command: %+v", r)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"help"}} {
		r := sakeRun(t, "", nil, args...)
		if r.code != exitOK || !strings.Contains(r.stdout, "inspect") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	// Every subcommand has its own -h, on stdout, exit 0, with its synopsis
	// and flags.
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}} {
			r := sakeRun(t, "", nil, args...)
			if r.code != exitOK || !strings.Contains(r.stdout, "usage: sake "+c.name) || r.stderr != "" {
				t.Errorf("%v: %+v", args, r)
			}
		}
	}
}

func TestUnknownFlag(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		r := sakeRun(t, "", nil, c.name, "-no-such-flag")
		if r.code != exitUsage || !strings.Contains(r.stderr, "-no-such-flag") || !strings.Contains(r.stderr, "sake "+c.name+" -h") {
			t.Errorf("%s -no-such-flag: %+v", c.name, r)
		}
	}
}

// The package documentation lists every command, with the summary the
// usage prints, and has a section for each.
func TestDocListsEveryCommand(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		line := fmt.Sprintf("//\t%-12s %s\n", c.name, c.summary)
		if !strings.Contains(string(doc), line) {
			t.Errorf("doc.go lacks the line %q", line)
		}
		if !strings.Contains(string(doc), "//\tsake "+c.name+" ") {
			t.Errorf("doc.go has no synopsis of %s", c.name)
		}
	}
}
