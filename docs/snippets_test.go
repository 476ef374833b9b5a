package docs_test

import (
	"errors"
	"fmt"
	"go/format"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGoSnippetsCompile compiles every Go block of README.md and docs/*.md
// against the module in this checkout.
func TestGoSnippetsCompile(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	var blocks []codeBlock
	for _, f := range markdownFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, goBlocks(f, text)...)
	}
	if len(blocks) == 0 {
		t.Fatal("no Go blocks found in README.md and docs/")
	}
	n, out, err := compileSnippets(t, root, blocks)
	if err != nil {
		t.Fatalf("the Go blocks of README.md and docs/ do not compile (lines are those of the Markdown files):\n%s", out)
	}
	t.Logf("compiled %d packages from %d Go blocks", n, len(blocks))
}

// TestSnippetCheckerCatchesBrokenSnippet runs the checker on a Markdown
// text with good and broken blocks: a file that uses a package it does
// not import, and a block that is not a whole file, must fail naming
// their lines, while a whole file, a file continuing its package and a
// fragment pass.
func TestSnippetCheckerCatchesBrokenSnippet(t *testing.T) {
	t.Parallel()
	md := "# Bad\n\n" +
		"```go\npackage notes\n\nimport \"github.com/sakemcp/sake-go/sake\"\n\ntype Notes struct{}\n\nvar srv = sake.MustNew(&Notes{})\n```\n\n" +
		"<!-- continues -->\n```go\npackage notes\n\nimport \"github.com/sakemcp/sake-go/sake\"\n\nfunc (n *Notes) Declare(d *sake.Declarations) { d.Tool(\"X\") }\n```\n\n" +
		"<!-- fragment -->\n```go\nfunc (s *T) Name(ctx *sake.Context[, args A]) (R, error)\n```\n\n" +
		"```go\npackage web\n\nimport \"net/http\"\n\nvar router http.Handler = chi.NewRouter()\n```\n\n" +
		"```go\nsrv := sake.MustNew(&Notes{})\n```\n"
	blocks := goBlocks("bad.md", []byte(md))
	if len(blocks) != 5 || !blocks[1].continues || !blocks[2].fragment {
		t.Fatalf("blocks = %+v", blocks)
	}
	_, out, err := compileSnippets(t, repoRoot(t), blocks)
	if err == nil {
		t.Fatal("a file using chi without importing it, and a block that is not a file, compiled")
	}
	chiLine := fmt.Sprintf("bad.md:%d:", blocks[3].line+4)
	if !strings.Contains(out, chiLine) || !strings.Contains(out, "undefined: chi") {
		t.Errorf("the failure does not name %s and chi (the test must not add imports):\n%s", chiLine, out)
	}
	notFile := fmt.Sprintf("bad.md:%d: this Go block is not a whole file", blocks[4].line)
	if !strings.Contains(out, notFile) || !strings.Contains(out, fragmentMarker) {
		t.Errorf("the failure does not say %q and how to mark a fragment:\n%s", notFile, out)
	}
	for _, b := range blocks[:3] {
		for i := range strings.Count(b.code, "\n") {
			if line := fmt.Sprintf("bad.md:%d:", b.line+i); strings.Contains(out, line) {
				t.Errorf("a good block or a fragment was reported (%s):\n%s", line, out)
			}
		}
	}
}

// compileSnippets writes each non-fragment block (or chain of continued
// blocks) as a package of a temporary module that replaces
// github.com/sakemcp/sake-go with root, and builds them all at once. It
// returns the number of packages and the build's output.
func compileSnippets(t *testing.T, root string, blocks []codeBlock) (int, string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := writeModule(dir, root); err != nil {
		t.Fatal(err)
	}
	var packages [][]codeBlock
	for _, b := range blocks {
		if b.fragment {
			continue
		}
		if b.continues && len(packages) > 0 && packages[len(packages)-1][0].file == b.file {
			packages[len(packages)-1] = append(packages[len(packages)-1], b)
			continue
		}
		packages = append(packages, []codeBlock{b})
	}
	var unparsed []string
	for i, pkg := range packages {
		pkgDir := filepath.Join(dir, fmt.Sprintf("s%03d", i))
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeSnippetPackage(pkgDir, pkg); err != nil {
			unparsed = append(unparsed, err.Error())
			if err := os.RemoveAll(pkgDir); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(goTool(), "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false")
	out, err := cmd.CombinedOutput()
	if len(unparsed) > 0 {
		out = append([]byte(strings.Join(unparsed, "\n")+"\n"), out...)
		if err == nil {
			err = fmt.Errorf("%d blocks do not parse", len(unparsed))
		}
	}
	return len(packages), string(out), err
}

// goTool is the go command: go test puts the toolchain's own first on PATH.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

// writeModule writes go.mod and go.sum of the snippets' module: the
// checkout's requirements, and a replace to the checkout.
func writeModule(dir, root string) error {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	text := string(mod)
	goLine := regexp.MustCompile(`(?m)^go .*$`).FindString(text)
	body := text[strings.Index(text, goLine)+len(goLine):]
	gomod := "module sakedocs.test/snippets\n\n" + goLine + "\n\n" +
		"require github.com/sakemcp/sake-go v0.0.0\n\n" +
		"replace github.com/sakemcp/sake-go => " + strconv.Quote(root) + "\n" + body
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// writeSnippetPackage writes one package made of blocks, a file per block,
// each as it is shown. A block without a package clause is refused: it
// must be a whole file or be marked a fragment.
func writeSnippetPackage(dir string, blocks []codeBlock) error {
	var notFiles []error
	for _, blk := range blocks {
		if packageName(blk.code) == "" {
			notFiles = append(notFiles, fmt.Errorf("%s:%d: this Go block is not a whole file: start it with its package clause and imports, or mark it %s on the line before it (docs/README.md)", blk.file, blk.line, fragmentMarker))
		}
	}
	if len(notFiles) > 0 {
		return errors.Join(notFiles...)
	}
	for i, blk := range blocks {
		src := fmt.Sprintf("//line %s:%d\n%s", blk.file, blk.line, blk.code)
		if err := writeGoFile(dir, fmt.Sprintf("snippet%d.go", i), src); err != nil {
			return err
		}
	}
	return nil
}

// writeGoFile writes a snippet's file, with placeholders for what its
// //go:embed lines name.
func writeGoFile(dir, name, src string) error {
	for _, m := range embedRE.FindAllStringSubmatch(src, -1) {
		for _, pattern := range strings.Fields(m[1]) {
			p := filepath.Join(dir, filepath.FromSlash(pattern))
			if filepath.Ext(pattern) == "" {
				p = filepath.Join(p, "placeholder", "SKILL.md")
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("<!doctype html>\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
}

var embedRE = regexp.MustCompile(`(?m)^\s*//go:embed\s+(.+)$`)

// packageName returns the name of the block's package clause when the
// block starts with one, else "".
func packageName(code string) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, scanner.ScanComments)
	for {
		_, tok, lit := s.Scan()
		if tok == token.COMMENT || tok == token.SEMICOLON && lit == "\n" {
			continue // a doc comment before the clause
		}
		if tok != token.PACKAGE {
			return ""
		}
		break
	}
	_, tok, lit := s.Scan()
	if tok != token.IDENT {
		return ""
	}
	return lit
}

// TestGoSnippetsAreFormatted checks that every Go block that is a file, a
// list of declarations or a list of statements reads as gofmt writes it.
func TestGoSnippetsAreFormatted(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, f := range markdownFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range goBlocks(f, text) {
			if b.fragment {
				continue
			}
			if want, ok := gofmtBlock(b.code); ok && want != b.code {
				n, got, fixed := firstDifference(b.code, want)
				t.Errorf("%s:%d: the block is not formatted as gofmt would:\n\thas    %q\n\tgofmt: %q", b.file, b.line+n, got, fixed)
			}
		}
	}
}

// TestFormatCheckerCatchesUnformattedBlock feeds the format check a block
// of each kind, formatted and not.
func TestFormatCheckerCatchesUnformattedBlock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code      string
		formatted bool
	}{
		{"package main\n\nfunc main() {}\n", true},
		{"package main\nfunc main()  {}\n", false},
		{"type T struct {\n\tA int\n}\n", true},
		{"type T struct {\n  A int\n}\n", false},
		{"x := 1\nif x > 0 {\n\tx++\n}\n", true},
		{"x:=1\n", false},
	} {
		want, ok := gofmtBlock(tc.code)
		if !ok {
			t.Errorf("%q was not checked", tc.code)
			continue
		}
		if (want == tc.code) != tc.formatted {
			t.Errorf("%q: formatted = %v, want %v (gofmt gives %q)", tc.code, want == tc.code, tc.formatted, want)
		}
	}
}

// firstDifference returns the index of the first line where a and b differ,
// and that line of each.
func firstDifference(a, b string) (int, string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return i, x, y
		}
	}
	return 0, "", ""
}

// gofmtBlock returns the block as gofmt formats it, and whether it could
// tell: a block that is a file, declarations alone or statements alone.
// A block mixing declarations and statements is not checked.
func gofmtBlock(code string) (string, bool) {
	if packageName(code) != "" {
		out, err := format.Source([]byte(code))
		return string(out), err == nil
	}
	const declHead = "package p\n\n"
	if out, err := format.Source([]byte(declHead + code)); err == nil {
		return strings.TrimPrefix(string(out), declHead), true
	}
	const stmtHead, stmtTail = "package p\n\nfunc _() {\n", "}\n"
	var indented strings.Builder
	for _, line := range strings.SplitAfter(code, "\n") {
		if strings.TrimSpace(line) != "" {
			indented.WriteString("\t")
		}
		indented.WriteString(line)
	}
	out, err := format.Source([]byte(stmtHead + indented.String() + stmtTail))
	if err != nil {
		return "", false
	}
	body := strings.TrimSuffix(strings.TrimPrefix(string(out), stmtHead), stmtTail)
	var b strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return b.String(), true
}
