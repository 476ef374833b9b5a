package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTools writes a node that reports version and an npx that records
// its arguments in dir/args and prints output.
func fakeTools(t *testing.T, version, output string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	if version != "" {
		write(t, filepath.Join(dir, "node"), "#!/bin/sh\necho "+version+"\n", 0o755)
	}
	write(t, filepath.Join(dir, "output.txt"), output, 0o644)
	write(t, filepath.Join(dir, "npx"), "#!/bin/sh\necho \"$@\" >> '"+filepath.Join(dir, "args")+"'\ncat '"+filepath.Join(dir, "output.txt")+"'\n", 0o755)
	return dir
}

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

const passingOutput = `Running server conformance tests...

=== SUMMARY ===
✓ server-initialize: 3 passed, 0 failed
✓ tools-call-simple-text: 2 passed, 0 failed

Total: 5 passed, 0 failed
`

const failingOutput = `=== SUMMARY ===
✓ server-initialize: 3 passed, 0 failed
✗ tools-call-image: 2 passed, 1 failed
Total: 5 passed, 1 failed
`

func TestConformanceNeedsNode(t *testing.T) {
	t.Parallel()
	noNode := fakeTools(t, "", passingOutput)
	oldNode := fakeTools(t, "v20.11.1", passingOutput)
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"nothing on PATH", t.TempDir(), []string{"Node.js 22 or newer", "npx", "https://nodejs.org/", "scripts/conformance.sh"}},
		{"npx without node", noNode, []string{"Node.js 22 or newer", "https://nodejs.org/"}},
		{"old node", oldNode, []string{"needs Node.js 22 or newer", "is v20.11.1", "https://nodejs.org/"}},
	} {
		r := sakeRun(t, "", map[string]string{"PATH": tc.path}, "conformance", "http://127.0.0.1:1/mcp")
		if r.code != exitFail || r.stdout != "" {
			t.Errorf("%s: %+v", tc.name, r)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: the message lacks %q: %s", tc.name, w, r.stderr)
			}
		}
	}
	// The suite never ran.
	assertNoFile(t, filepath.Join(noNode, "args"))
	assertNoFile(t, filepath.Join(oldNode, "args"))
}

func TestConformanceRunsTheSuite(t *testing.T) {
	t.Parallel()
	tools := fakeTools(t, "v22.12.0", passingOutput)
	out := filepath.Join(t.TempDir(), "results")
	url := "http://127.0.0.1:1/mcp"
	r := sakeRun(t, "", map[string]string{"PATH": tools}, "conformance", "-o", out, url)
	if r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"== 2025-11-25 (@modelcontextprotocol/conformance 0.2.0-alpha.12 against " + url + ")",
		"ok   server-initialize (3 checks ok, 0 failing)",
		"2025-11-25: 2 of 2 scenarios pass",
		"2026-07-28: 2 of 2 scenarios pass",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
	args, _ := os.ReadFile(filepath.Join(tools, "args"))
	want := "-y @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url " + url + " --requirements 2025-11-25 -o " + filepath.Join(out, "2025-11-25") + "\n" +
		"-y @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url " + url + " --requirements 2026-07-28 -o " + filepath.Join(out, "2026-07-28") + "\n"
	if string(args) != want {
		t.Errorf("npx ran with\n%s\nwant\n%s", args, want)
	}
	// -revisions and -suite.
	tools = fakeTools(t, "v24.0.0", passingOutput)
	r = sakeRun(t, "", map[string]string{"PATH": tools}, "conformance", "-revisions", "2026-07-28", "-suite", "0.3.0", url)
	args, _ = os.ReadFile(filepath.Join(tools, "args"))
	if r.code != exitOK || !strings.HasPrefix(string(args), "-y @modelcontextprotocol/conformance@0.3.0 server --url "+url+" --requirements 2026-07-28 -o ") || strings.Count(string(args), "\n") != 1 {
		t.Errorf("%+v\n%s", r, args)
	}
}

func TestConformanceFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		output string
		want   string
	}{
		{failingOutput, "FAIL tools-call-image (2 checks ok, 1 failing)"},
		{"npm ERR! 404 Not Found\n", "the suite printed no summary"},
	} {
		tools := fakeTools(t, "v22.0.0", tc.output)
		r := sakeRun(t, "", map[string]string{"PATH": tools}, "conformance", "-revisions", "2025-11-25", "http://127.0.0.1:1/mcp")
		if r.code != exitFail || !strings.Contains(r.stdout, tc.want) || !strings.Contains(r.stderr, "some scenarios fail") {
			t.Errorf("%+v; want %q", r, tc.want)
		}
	}
}

func TestConformanceStartsTheCommand(t *testing.T) {
	t.Parallel()
	bin := buildExample(t, "everything")
	tools := fakeTools(t, "v22.0.0", passingOutput)
	r := sakeRun(t, "", map[string]string{"PATH": tools}, "conformance", "-revisions", "2026-07-28", bin)
	args, _ := os.ReadFile(filepath.Join(tools, "args"))
	if r.code != exitOK || !strings.Contains(string(args), "--url http://127.0.0.1:") || !strings.Contains(r.stdout, "/mcp)") {
		t.Errorf("%+v\n%s", r, args)
	}
	// A command that does not serve HTTP is reported with its stderr.
	quit := filepath.Join(t.TempDir(), "quit")
	write(t, quit, "#!/bin/sh\necho unknown flag: $1 >&2\nexit 2\n", 0o755)
	r = sakeRun(t, "", map[string]string{"PATH": tools}, "conformance", "-http-flag", "--listen", quit)
	if r.code != exitFail || !strings.Contains(r.stderr, "exited before it listened") || !strings.Contains(r.stderr, "unknown flag: --listen") || !strings.Contains(r.stderr, "-http-flag") {
		t.Errorf("%+v", r)
	}
}

func TestConformanceUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"conformance"}, "name the server"},
		{[]string{"conformance", "-revisions", "2026-07-28,2099-01-01", "x"}, `"2099-01-01" is not a protocol revision`},
		{[]string{"conformance", "-revisions", ",", "x"}, "name at least one"},
		{[]string{"conformance", "http://127.0.0.1:1/mcp", "extra"}, "a URL takes no arguments"},
	} {
		r := sakeRun(t, "", map[string]string{"PATH": t.TempDir()}, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %q", tc.args, r, tc.want)
		}
	}
}

func TestArgumentBuilding(t *testing.T) {
	t.Parallel()
	if got := strings.Join(suiteArgs("1.0.0", "http://h/mcp", "2025-11-25", "/o/2025-11-25"), " "); got != "-y @modelcontextprotocol/conformance@1.0.0 server --url http://h/mcp --requirements 2025-11-25 -o /o/2025-11-25" {
		t.Errorf("suiteArgs: %s", got)
	}
	target := []string{"bin/srv", "-db", "x.db"}
	if got := strings.Join(serverArgs(target, "-http", "127.0.0.1:5000"), " "); got != "-db x.db -http 127.0.0.1:5000" {
		t.Errorf("serverArgs: %s", got)
	}
	if len(target) != 3 || target[2] != "x.db" {
		t.Errorf("serverArgs changed its input: %v", target)
	}
	s := parseSummary(failingOutput + "\nNot scored:\n  ✓ extra: 1 passed, 0 failed\n")
	if len(s.scenarios) != 2 || s.passing() != 1 || s.scenarios[1] != (scenario{"tools-call-image", false, 2, 1}) {
		t.Errorf("parseSummary: %+v", s)
	}
}
