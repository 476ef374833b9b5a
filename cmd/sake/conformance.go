package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

const conformanceUsage = `usage: sake conformance [flags] CMD [ARGS...] | URL

Conformance runs the official MCP conformance suite
(@modelcontextprotocol/conformance, through npx) against a server over
Streamable HTTP, once per protocol revision, and prints the scenarios that
pass and fail for each. It exits with 1 when one fails.

A URL is tested as it is. A command is started with -http 127.0.0.1:PORT
added to its arguments (the servers sake new writes and the examples take
it; -http-flag names another flag), on a free port, and stopped at the end.

It needs Node.js 22 or newer and npx on PATH: https://nodejs.org/.
npx downloads the suite the first time.

Examples:

	sake conformance bin/everything
	sake conformance -revisions 2026-07-28 http://127.0.0.1:3001/mcp
`

// conformanceSuite is the package and version of the suite.
const conformanceSuite = "@modelcontextprotocol/conformance"

// defaultSuiteVersion is the version of the suite sake runs by default.
const defaultSuiteVersion = "0.2.0-alpha.12"

func runConformance(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "conformance", conformanceUsage)
	revisions := flags.String("revisions", protocol.LegacyVersion+","+protocol.ModernVersion, "the protocol revisions to test, comma-separated")
	version := flags.String("suite", defaultSuiteVersion, "the `version` of "+conformanceSuite+" to run")
	out := flags.String("o", "", "keep the suite's results in this `directory` (default: a temporary one, removed)")
	httpFlag := flags.String("http-flag", "-http", "the flag that makes the server command serve HTTP on an address")
	wait := flags.Duration("wait", 30*time.Second, "how long the server command may take to listen")
	verbose := flags.Bool("v", false, "show the suite's whole output and the server's standard error")
	if err := parse(flags, e, args); err != nil {
		return err
	}
	target := flags.Args()
	if len(target) == 0 {
		return usagef("name the server: a command and its arguments, or an http(s):// URL")
	}
	revs, err := parseRevisions(*revisions)
	if err != nil {
		return err
	}
	if isURL(target[0]) && len(target) > 1 {
		return usagef("a URL takes no arguments after it (got %q)", target[1:])
	}
	npx, err := findNode(e)
	if err != nil {
		return err
	}
	url := target[0]
	if !isURL(url) {
		stop, u, err := startHTTPServer(ctx, e, target, *httpFlag, *wait, *verbose)
		if err != nil {
			return err
		}
		defer stop()
		url = u
	}
	dir := *out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sake-conformance-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	failed := false
	for _, rev := range revs {
		cmd := exec.CommandContext(ctx, npx, suiteArgs(*version, url, rev, filepath.Join(dir, rev))...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if *verbose {
			cmd.Stdout = io.MultiWriter(&buf, e.stderr)
			cmd.Stderr = cmd.Stdout
		}
		fmt.Fprintf(e.stdout, "== %s (%s %s against %s)\n", rev, conformanceSuite, *version, url)
		runErr := cmd.Run()
		sum := parseSummary(buf.String())
		if len(sum.scenarios) == 0 {
			fmt.Fprintf(e.stdout, "%s\n", strings.TrimSpace(lastLines(buf.String(), 30)))
			fmt.Fprintf(e.stdout, "the suite printed no summary (%v)\n", runErr)
			failed = true
			continue
		}
		for _, s := range sum.scenarios {
			mark := "ok  "
			if !s.ok {
				mark = "FAIL"
			}
			fmt.Fprintf(e.stdout, "%s %s (%d checks ok, %d failing)\n", mark, s.name, s.passed, s.failed)
		}
		fmt.Fprintf(e.stdout, "%s: %d of %d scenarios pass\n", rev, sum.passing(), len(sum.scenarios))
		if sum.passing() != len(sum.scenarios) || runErr != nil {
			failed = true
		}
	}
	if failed {
		if *out == "" {
			fmt.Fprintln(e.stderr, "sake conformance: some scenarios fail; run with -o DIR to keep the suite's results, -v to see its output")
		} else {
			fmt.Fprintf(e.stderr, "sake conformance: some scenarios fail; the suite's results are in %s\n", dir)
		}
		return errSilentFail
	}
	return nil
}

// parseRevisions checks -revisions.
func parseRevisions(s string) ([]string, error) {
	var out []string
	for _, r := range strings.Split(s, ",") {
		r = strings.TrimSpace(r)
		switch r {
		case "":
			continue
		case protocol.ModernVersion, protocol.LegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05":
			out = append(out, r)
		default:
			return nil, usagef("-revisions: %q is not a protocol revision (want 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05)", r)
		}
	}
	if len(out) == 0 {
		return nil, usagef("-revisions: name at least one protocol revision")
	}
	return out, nil
}

// suiteArgs are npx's arguments to run the suite against url for one
// revision, writing its results to out.
func suiteArgs(version, url, rev, out string) []string {
	return []string{"-y", conformanceSuite + "@" + version, "server", "--url", url, "--requirements", rev, "-o", out}
}

// serverArgs are the server command's arguments to serve HTTP on addr.
func serverArgs(target []string, httpFlag, addr string) []string {
	return append(append([]string{}, target[1:]...), httpFlag, addr)
}

// errNoNode says what the suite needs.
var errNoNode = errors.New("the conformance suite runs on Node.js: install Node.js 22 or newer, which brings npx (https://nodejs.org/), and make sure node and npx are on PATH; in a sake-go checkout, scripts/conformance.sh fetches Node and the suite itself")

// minNode is the oldest Node.js major version the suite is run with.
const minNode = 22

// findNode returns npx's path, or what to install.
func findNode(e *env) (string, error) {
	npx, err := e.lookPath("npx")
	if err != nil {
		return "", errNoNode
	}
	node, err := e.lookPath("node")
	if err != nil {
		return "", errNoNode
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version failed (%v): %w", node, err, errNoNode)
	}
	v := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(v, "v"), ".", 2)[0])
	if major < minNode {
		return "", fmt.Errorf("the conformance suite needs Node.js %d or newer, and %s is %s: install a newer one (https://nodejs.org/) and put it first on PATH; in a sake-go checkout, scripts/conformance.sh fetches Node and the suite itself", minNode, node, v)
	}
	return npx, nil
}

// startHTTPServer starts the server command serving HTTP on a free
// loopback port and returns its URL once it accepts connections.
func startHTTPServer(ctx context.Context, e *env, target []string, httpFlag string, wait time.Duration, verbose bool) (stop func(), url string, err error) {
	path, err := e.lookPath(target[0])
	if err != nil {
		return nil, "", fmt.Errorf("cannot start the server %q: %v", target[0], err)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	var stderr io.Writer
	if verbose {
		stderr = e.stderr
	}
	p, err := startProcess(path, serverArgs(target, httpFlag, addr), nil, stderr)
	if err != nil {
		return nil, "", err
	}
	if err := p.waitListening(ctx, addr, wait); err != nil {
		p.stop()
		return nil, "", fmt.Errorf("%v; is %s %s ADDR how it serves HTTP? (-http-flag names another flag)\nits standard error ended with:\n%s",
			err, target[0], httpFlag, strings.TrimSpace(p.tail.String()))
	}
	return p.stop, "http://" + addr + "/mcp", nil
}

// scenario is one line of the suite's summary.
type scenario struct {
	name           string
	ok             bool
	passed, failed int
}

type summary struct{ scenarios []scenario }

func (s summary) passing() int {
	n := 0
	for _, sc := range s.scenarios {
		if sc.ok {
			n++
		}
	}
	return n
}

var summaryLine = regexp.MustCompile(`^([✓✗]) ([^:]+): (\d+) passed, (\d+) failed\s*$`)

// parseSummary reads the scenario lines after the suite's SUMMARY.
func parseSummary(out string) summary {
	var s summary
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "SUMMARY") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, "Total") {
			break
		}
		if m := summaryLine.FindStringSubmatch(line); m != nil {
			p, _ := strconv.Atoi(m[3])
			f, _ := strconv.Atoi(m[4])
			s.scenarios = append(s.scenarios, scenario{name: m[2], ok: m[1] == "✓" && f == 0, passed: p, failed: f})
		}
	}
	return s
}

// lastLines returns the last n lines of s, each cut at 200 characters.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > 200 {
			lines[i] = string(r[:200]) + "..."
		}
	}
	return strings.Join(lines, "\n")
}
