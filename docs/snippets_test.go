package docs_test

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// importTable resolves the package names a snippet may use without
// importing them: the project's packages and the standard library's, by
// their usual names. An entry is only imported by a snippet that uses the
// name; pgstore is the tasks store (import sake/auth/server/pgstore by
// hand).
var importTable = map[string]string{
	"sake":       "github.com/sakemcp/sake-go/sake",
	"protocol":   "github.com/sakemcp/sake-go/sake/protocol",
	"backend":    "github.com/sakemcp/sake-go/sake/backend",
	"memory":     "github.com/sakemcp/sake-go/sake/client/memory",
	"proxy":      "github.com/sakemcp/sake-go/sake/proxy",
	"plug":       "github.com/sakemcp/sake-go/sake/plug",
	"stdio":      "github.com/sakemcp/sake-go/sake/stdio",
	"saketest":   "github.com/sakemcp/sake-go/sake/saketest",
	"client":     "github.com/sakemcp/sake-go/sake/client",
	"auth":       "github.com/sakemcp/sake-go/sake/auth",
	"server":     "github.com/sakemcp/sake-go/sake/auth/server",
	"tasks":      "github.com/sakemcp/sake-go/sake/tasks",
	"pgstore":    "github.com/sakemcp/sake-go/sake/tasks/pgstore",
	"pgbroker":   "github.com/sakemcp/sake-go/sake/pgbroker",
	"pgreplica":  "github.com/sakemcp/sake-go/sake/pgreplica",
	"middleware": "github.com/sakemcp/sake-go/sake/middleware",
	"pgbuckets":  "github.com/sakemcp/sake-go/sake/middleware/pgbuckets",
	"sakeotel":   "github.com/sakemcp/sake-go/sake/otel",
	"transport":  "github.com/sakemcp/sake-go/sake/transport",
	"chi":        "github.com/go-chi/chi/v5",
	"pgxpool":    "github.com/jackc/pgx/v5/pgxpool",
	"bytes":      "bytes",
	"context":    "context",
	"embed":      "embed",
	"exec":       "os/exec",
	"errors":     "errors",
	"filepath":   "path/filepath",
	"fmt":        "fmt",
	"fs":         "io/fs",
	"http":       "net/http",
	"httptest":   "net/http/httptest",
	"io":         "io",
	"json":       "encoding/json",
	"log":        "log",
	"net":        "net",
	"os":         "os",
	"signal":     "os/signal",
	"slog":       "log/slog",
	"sort":       "sort",
	"strconv":    "strconv",
	"strings":    "strings",
	"sync":       "sync",
	"syscall":    "syscall",
	"template":   "html/template",
	"testing":    "testing",
	"time":       "time",
	"tls":        "crypto/tls",
	"url":        "net/url",
}

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

// TestSnippetCheckerCatchesBrokenSnippet runs the checker on a Markdown text
// with one broken block: it must fail naming that block's line, while a
// fragment, an unused variable, a package file and continued blocks pass.
func TestSnippetCheckerCatchesBrokenSnippet(t *testing.T) {
	t.Parallel()
	md := "# Bad\n\n" +
		"```go\ntype Notes struct{}\n\nsrv := sake.MustNew(&Notes{})\nunused := 1\n```\n\n" +
		"<!-- continues -->\n```go\nfunc (n *Notes) Declare(d *sake.Declarations) { d.Tool(\"X\") }\n```\n\n" +
		"<!-- fragment -->\n```go\nfunc (s *T) Name(ctx *sake.Context[, args A]) (R, error)\n```\n\n" +
		"```go\nres := sake.NoSuchFunction()\n```\n\n" +
		"```go\npackage main\n\ntype Greeter struct{}\n\nfunc main() {}\n```\n\n" +
		"<!-- continues -->\n```go\nfunc greeter() any { x := 1; return Greeter{} }\n```\n"
	blocks := goBlocks("bad.md", []byte(md))
	if len(blocks) != 6 || !blocks[1].continues || !blocks[2].fragment || !blocks[5].continues {
		t.Fatalf("blocks = %+v", blocks)
	}
	_, out, err := compileSnippets(t, repoRoot(t), blocks)
	if err == nil {
		t.Fatal("a block calling an undefined function compiled")
	}
	if !strings.Contains(out, "bad.md:21") || !strings.Contains(out, "NoSuchFunction") {
		t.Errorf("the failure does not name bad.md:21 and the undefined name:\n%s", out)
	}
	for _, line := range []string{"bad.md:4", "bad.md:6", "bad.md:7", "bad.md:12", "bad.md:17", "bad.md:25", "bad.md:27", "bad.md:34"} {
		if strings.Contains(out, line+":") {
			t.Errorf("a good block or a fragment was reported (%s):\n%s", line, out)
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

// writeSnippetPackage writes one package made of blocks, a file per block.
// A block that starts with a package clause is written as it is; any other
// is wrapped in a file of the package's name (that of its first package
// clause, else "snippet").
func writeSnippetPackage(dir string, blocks []codeBlock) error {
	pkgName := "snippet"
	for _, blk := range blocks {
		if name := packageName(blk.code); name != "" {
			pkgName = name
			break
		}
	}
	for i, blk := range blocks {
		name := fmt.Sprintf("snippet%d.go", i)
		if packageName(blk.code) != "" {
			src := fmt.Sprintf("//line %s:%d\n%s", blk.file, blk.line, blk.code)
			if err := writeGoFile(dir, name, src); err != nil {
				return err
			}
			continue
		}
		src, err := wrapBlock(pkgName, blk)
		if err != nil {
			return err
		}
		if err := writeGoFile(dir, name, src); err != nil {
			return err
		}
	}
	return nil
}

// wrapBlock makes a file of a block of declarations and statements: the
// imports it names and those it uses from importTable, its declarations,
// and its statements in a function.
func wrapBlock(pkgName string, blk codeBlock) (string, error) {
	items, err := splitItems(blk)
	if err != nil {
		return "", err
	}
	var imports, decls, body strings.Builder
	for _, it := range items {
		chunk := fmt.Sprintf("\n//line %s:%d\n%s\n", blk.file, it.line, it.text)
		switch it.kind {
		case itemImport:
			imports.WriteString(chunk)
		case itemDecl:
			decls.WriteString(chunk)
		default:
			body.WriteString(chunk)
		}
	}
	src := "package " + pkgName + "\n" + imports.String() + decls.String()
	if body.Len() > 0 {
		src += fmt.Sprintf("\nfunc snippetLine%d() {%s}\n", blk.line, body.String())
	}
	src, err = tolerateUnused(src)
	if err != nil {
		return "", err // its position is the Markdown file's, through the //line comments
	}
	return addImports(pkgName, src)
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
	s.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, 0)
	if _, tok, _ := s.Scan(); tok != token.PACKAGE {
		return ""
	}
	_, tok, lit := s.Scan()
	if tok != token.IDENT {
		return ""
	}
	return lit
}

type itemKind int

const (
	itemStmt itemKind = iota
	itemDecl
	itemImport
)

// item is one top-level declaration or statement of a block.
type item struct {
	kind itemKind
	line int // in the Markdown file
	text string
}

// scanTok is a token of a block and where it is.
type scanTok struct {
	pos token.Pos
	tok token.Token
}

// splitItems cuts a block into its top-level declarations, imports and
// statements: an item ends at a semicolon (written or implied by a newline)
// outside brackets, and the comments before it belong to it.
func splitItems(b codeBlock) ([]item, error) {
	code := []byte(b.code)
	fset := token.NewFileSet()
	file := fset.AddFile(b.file, -1, len(code))
	var s scanner.Scanner
	var scanErr error
	s.Init(file, code, func(pos token.Position, msg string) {
		if scanErr == nil {
			scanErr = fmt.Errorf("%s:%d: %s", b.file, b.line+pos.Line-1, msg)
		}
	}, 0)
	var toks []scanTok
	for {
		pos, t, _ := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, scanTok{pos, t})
	}
	if scanErr != nil {
		return nil, scanErr
	}
	var items []item
	start, depth, first := 0, 0, -1 // start: byte offset where the item's text begins
	flush := func(end int) {
		if first < 0 {
			return
		}
		text := string(code[start:end])
		lead := len(text) - len(strings.TrimLeft(text, " \t\n"))
		line := b.line + strings.Count(string(code[:start+lead]), "\n")
		items = append(items, item{kind: kindOf(toks, first), line: line, text: strings.TrimLeft(text, " \t\n")})
	}
	for i, tk := range toks {
		switch tk.tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
		if tk.tok == token.SEMICOLON && depth == 0 {
			end := file.Offset(tk.pos)
			if end > len(code) {
				end = len(code)
			}
			flush(end)
			start, first = end, -1
			if end < len(code) && code[end] == ';' {
				start++
			}
			continue
		}
		if first < 0 {
			first = i
		}
	}
	flush(len(code))
	return items, nil
}

// kindOf classifies the item whose first token is toks[i]: import, a
// declaration (type, const, var, func Name, func (recv) Name), or a
// statement (anything else, a function literal included).
func kindOf(toks []scanTok, i int) itemKind {
	switch toks[i].tok {
	case token.IMPORT:
		return itemImport
	case token.TYPE, token.CONST, token.VAR:
		return itemDecl
	case token.FUNC:
	default:
		return itemStmt
	}
	if i+1 >= len(toks) {
		return itemStmt
	}
	if toks[i+1].tok == token.IDENT {
		return itemDecl
	}
	if toks[i+1].tok != token.LPAREN {
		return itemStmt
	}
	depth := 0
	for j := i + 1; j < len(toks); j++ {
		switch toks[j].tok {
		case token.LPAREN:
			depth++
		case token.RPAREN:
			depth--
			if depth == 0 {
				if j+1 < len(toks) && toks[j+1].tok == token.IDENT {
					return itemDecl // a method
				}
				return itemStmt
			}
		}
	}
	return itemStmt
}

// tolerateUnused adds "_ = name" after every statement of a block that
// declares variables, on the same line, so that a snippet may leave a
// variable unread.
func tolerateUnused(src string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "snippet.go", src, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	type insertion struct {
		at   int
		text string
	}
	var ins []insertion
	visitList := func(list []ast.Stmt) {
		for _, st := range list {
			var names []string
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, e := range st.Lhs {
						if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
							names = append(names, id.Name)
						}
					}
				}
			case *ast.DeclStmt:
				if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, spec := range g.Specs {
						for _, id := range spec.(*ast.ValueSpec).Names {
							if id.Name != "_" {
								names = append(names, id.Name)
							}
						}
					}
				}
			}
			if len(names) > 0 {
				blanks := strings.TrimSuffix(strings.Repeat("_, ", len(names)), ", ")
				ins = append(ins, insertion{fset.Position(st.End()).Offset, "; " + blanks + " = " + strings.Join(names, ", ")})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			visitList(n.List)
		case *ast.CaseClause:
			visitList(n.Body)
		case *ast.CommClause:
			visitList(n.Body)
		}
		return true
	})
	sort.Slice(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	for _, in := range ins {
		src = src[:in.at] + in.text + src[in.at:]
	}
	return src, nil
}

// addImports adds an import for every name of importTable the file uses
// but neither declares nor imports.
func addImports(pkgName, src string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "snippet.go", src, 0)
	if err != nil {
		return "", err
	}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = true
	}
	need := map[string]bool{}
	for _, id := range f.Unresolved {
		if _, ok := importTable[id.Name]; ok && !imported[id.Name] {
			need[id.Name] = true
		}
	}
	if len(need) == 0 {
		return src, nil
	}
	names := make([]string, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("package " + pkgName + "\n\nimport (\n")
	for _, n := range names {
		path := importTable[n]
		if path[strings.LastIndex(path, "/")+1:] == n {
			fmt.Fprintf(&b, "\t%q\n", path)
		} else {
			fmt.Fprintf(&b, "\t%s %q\n", n, path)
		}
	}
	b.WriteString(")\n")
	return b.String() + strings.TrimPrefix(src, "package "+pkgName+"\n"), nil
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
