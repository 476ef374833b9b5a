package docs_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fencedBlock is a fenced block of a Markdown text, of any language.
type fencedBlock struct {
	lang, body string
}

// section returns the text of the "## title" section of a Markdown text.
func section(t *testing.T, text, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("no section %q", title)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// fencedBlocks returns the ``` blocks of a Markdown text, in order.
func fencedBlocks(text string) []fencedBlock {
	var blocks []fencedBlock
	var cur *fencedBlock
	var body []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fencedBlock{lang: strings.TrimPrefix(line, "```")}
			body = nil
		case cur != nil && line == "```":
			cur.body = strings.Join(body, "\n")
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body = append(body, line)
		}
	}
	return blocks
}

var (
	goTestLineRE = regexp.MustCompile(`^(ok  \t(\S+)\t\d+\.\d+s|\?   \t(\S+)\t\[no test files\])$`)
	depsClaimRE  = regexp.MustCompile(`It links (\d+) packages outside the standard\s+library`)
)

// TestReadmeFromAClone keeps the README's "From a clone" section true: its
// two commands are there as a person types them, the quickstart prints
// exactly the lines shown and answers the request it offers, the count
// of packages it links is the one go list gives, and the lines shown for
// go test ./... name packages of the module as go test would print them.
func TestReadmeFromAClone(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sec := section(t, string(readme), "From a clone")
	var commands []string
	var outputs []string
	for _, b := range fencedBlocks(sec) {
		switch b.lang {
		case "sh":
			commands = append(commands, strings.Split(b.body, "\n")...)
		case "text":
			outputs = append(outputs, b.body)
		}
	}
	for _, want := range []string{"go run ./examples/quickstart", "go test ./..."} {
		found := false
		for _, c := range commands {
			found = found || strings.TrimSpace(c) == want
		}
		if !found {
			t.Errorf("the section's sh blocks lack the command %q: %q", want, commands)
		}
	}
	if len(outputs) != 2 {
		t.Fatalf("the section shows %d text blocks, want the quickstart's output and go test's", len(outputs))
	}

	t.Run("quickstart", func(t *testing.T) {
		t.Parallel()
		banner := outputs[0]
		lines := strings.Split(banner, "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[2], "  {") {
			t.Fatalf("the quickstart's output shown is not four lines with the request third:\n%s", banner)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "run", "./examples/quickstart")
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(strings.TrimSpace(lines[2]) + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("go run ./examples/quickstart: %v\n%s", err, stderr.Bytes())
		}
		if stderr.String() != banner+"\n" {
			t.Errorf("go run ./examples/quickstart printed on stderr\n%s\nbut the README shows\n%s", stderr.Bytes(), banner)
		}
		for _, f := range []string{"README.md", "docs/getting-started.md"} {
			text, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(strings.Fields(string(text)), " "), "prints four lines on stderr") {
				t.Errorf("%s does not say the quickstart prints four lines on stderr", f)
			}
		}
		if !strings.Contains(stdout.String(), `"text":"Hello, Rui!"`) {
			t.Errorf("the request the quickstart offers was answered %s", stdout.Bytes())
		}
		m := depsClaimRE.FindStringSubmatch(sec)
		if m == nil {
			t.Fatal(`the section does not say "It links N packages outside the standard library"`)
		}
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", filepath.Join(root, "examples", "quickstart")).Output()
		if err != nil {
			t.Fatal(err)
		}
		if n := len(strings.Fields(string(out))); strconv.Itoa(n) != m[1] {
			t.Errorf("the README says the quickstart links %s packages outside the standard library; go list -deps says %d", m[1], n)
		}
	})

	t.Run("go test", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{len .TestGoFiles}} {{len .XTestGoFiles}}", "./...")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list ./...: %v", err)
		}
		hasTests := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			hasTests[f[0]] = f[1] != "0" || f[2] != "0"
		}
		for _, line := range strings.Split(outputs[1], "\n") {
			m := goTestLineRE.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%q is not a line go test prints (ok, tab, package, tab, time; or ?, tab, package, tab, [no test files])", line)
				continue
			}
			pkg, ok := m[2], true
			if pkg == "" {
				pkg, ok = m[3], false
			}
			tests, known := hasTests[pkg]
			switch {
			case !known:
				t.Errorf("%q names a package go test ./... does not test", line)
			case tests != ok:
				t.Errorf("%q: the package has test files: %v", line, tests)
			}
		}
	})
}
