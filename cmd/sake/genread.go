package main

import (
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// sakeImport is the import path of the root package.
const sakeImport = "github.com/sakemcp/sake-go/sake"

// Limits of what gen reads, so that a mistaken DIR cannot make it read
// without end.
const (
	maxGenFiles     = 2000     // Go files in the package directory
	maxGenFileBytes = 10 << 20 // bytes of one Go file
)

// typeDocs is what gen found for one named type of the package.
type typeDocs struct {
	name    string
	methods map[string]string // method name -> description
	fields  map[string]string // field name -> description
}

// pkgDocs is what gen found in a package.
type pkgDocs struct {
	name  string
	self  bool            // the package is sake itself
	scope map[string]bool // the package-level names
	// declared holds the named, non-generic types declared in the files
	// read: only they are registered.
	declared map[string]bool
	types    map[string]*typeDocs
	// methods holds every method name of every receiver type, for doc
	// links ([T.M]).
	methods map[string]map[string]bool
}

// readDocs parses the package in dir: every .go file but tests, the
// output file, and files built only under some condition (a //go:build
// line or an _os or _arch name), whose types may not exist everywhere the
// generated file is compiled.
func readDocs(dir, output string) (*pkgDocs, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") ||
			n == output || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || constrainedName(n) {
			continue
		}
		if len(names) == maxGenFiles {
			return nil, fmt.Errorf("%s has more than %d Go files", dir, maxGenFiles)
		}
		path := filepath.Join(dir, n)
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		if info.Size() > maxGenFileBytes {
			return nil, fmt.Errorf("%s is larger than %d bytes", path, maxGenFileBytes)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		// The header first: a file left out need not parse.
		head, err := parser.ParseFile(fset, path, src, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if hasBuildConstraint(head) {
			continue
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		names = append(names, n)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no Go files to read (tests, %s and files with build constraints are left out)", dir, output)
	}
	p := &pkgDocs{name: files[0].Name.Name, scope: map[string]bool{}, declared: map[string]bool{}, types: map[string]*typeDocs{},
		methods: map[string]map[string]bool{}}
	for i, f := range files {
		if f.Name.Name != p.name {
			return nil, fmt.Errorf("%s is package %s, %s is package %s: one package a directory", names[0], p.name, names[i], f.Name.Name)
		}
	}
	p.self = isSakeDir(dir)
	for _, f := range files {
		p.readFile(f)
	}
	return p, nil
}

// isSakeDir reports whether dir is the root package itself (whose
// generated file must not import it).
func isSakeDir(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(abs, "..", "go.mod"))
	return err == nil && filepath.Base(abs) == "sake" && strings.Contains(string(b), "module github.com/sakemcp/sake-go\n")
}

func (p *pkgDocs) typ(name string) *typeDocs {
	t := p.types[name]
	if t == nil {
		t = &typeDocs{name: name, methods: map[string]string{}, fields: map[string]string{}}
		p.types[name] = t
	}
	return t
}

func (p *pkgDocs) readFile(f *ast.File) {
	imports := fileImports(f)
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				p.scope[s.Name.Name] = true
				if s.TypeParams != nil || s.Assign.IsValid() {
					continue
				}
				p.declared[s.Name.Name] = true
				if st, ok := s.Type.(*ast.StructType); ok {
					p.readFields(s.Name.Name, st)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					p.scope[n.Name] = true
				}
			}
		}
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fn.Recv == nil {
			p.scope[fn.Name.Name] = true
			continue
		}
		recv := receiverName(fn.Recv)
		if recv != "" {
			if p.methods[recv] == nil {
				p.methods[recv] = map[string]bool{}
			}
			p.methods[recv][fn.Name.Name] = true
		}
		if recv == "" || !fn.Name.IsExported() || fn.Doc == nil || !takesContextFirst(fn.Type, imports, p.self) {
			continue
		}
		if strings.TrimSpace(fn.Doc.Text()) != "" {
			p.typ(recv).methods[fn.Name.Name] = fn.Doc.Text()
		}
	}
}

// readFields records the doc comment (or, without one, the line comment)
// of each named field.
func (p *pkgDocs) readFields(typeName string, st *ast.StructType) {
	for _, f := range st.Fields.List {
		c := f.Doc
		if c == nil {
			c = f.Comment
		}
		if c == nil || len(f.Names) == 0 {
			continue
		}
		text := c.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				p.typ(typeName).fields[n.Name] = text
			}
		}
	}
}

// fileImports maps each import path of f to its name in the file.
func fileImports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[path] = name
	}
	return m
}

// receiverName returns the name of a method's receiver type, or "" for a
// generic one.
func receiverName(recv *ast.FieldList) string {
	if len(recv.List) != 1 {
		return ""
	}
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// takesContextFirst reports whether the function's first parameter is a
// context.Context or a *sake.Context: the methods sake.New makes
// components of.
func takesContextFirst(ft *ast.FuncType, imports map[string]string, self bool) bool {
	if ft.Params == nil || len(ft.Params.List) == 0 {
		return false
	}
	t := ft.Params.List[0].Type
	if sel, ok := t.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok && sel.Sel.Name == "Context" {
			if name, ok := imports["context"]; ok && id.Name == name {
				return true
			}
		}
	}
	star, ok := t.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := star.X.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		name, imported := imports[sakeImport]
		return ok && imported && id.Name == name && x.Sel.Name == "Context"
	case *ast.Ident:
		return self && x.Name == "Context"
	}
	return false
}

// docText turns the text of a doc comment into the plain text of a
// description: doc links ([Name], [pkg.Name]) and other markup become
// text, paragraphs stay apart, lines are not wrapped, code blocks are
// indented by four spaces.
func (p *pkgDocs) docText(raw string) string {
	parser := comment.Parser{LookupSym: func(recv, name string) bool {
		if recv == "" {
			return p.scope[name]
		}
		return p.methods[recv][name]
	}}
	printer := comment.Printer{TextWidth: -1, TextCodePrefix: "    "}
	return strings.TrimSpace(string(printer.Text(parser.Parse(raw))))
}

// hasBuildConstraint reports whether f has a //go:build line before its
// package clause.
func hasBuildConstraint(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() >= f.Package {
			break
		}
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "//go:build") || strings.HasPrefix(c.Text, "// +build") {
				return true
			}
		}
	}
	return false
}

// constrainedName reports whether a file name builds it only on some
// systems or architectures (name_linux.go, name_amd64.go,
// name_linux_amd64.go).
func constrainedName(name string) bool {
	parts := strings.Split(strings.TrimSuffix(name, ".go"), "_")
	if len(parts) < 2 {
		return false
	}
	last := parts[len(parts)-1]
	return knownOS[last] || knownArch[last]
}

var knownOS = setOf("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
	"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")

var knownArch = setOf("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips",
	"mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv",
	"riscv64", "s390", "s390x", "sparc", "sparc64", "wasm")

func setOf(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// sortedTypes returns the types that have something to register, by name.
func (p *pkgDocs) sortedTypes() []*typeDocs {
	var out []*typeDocs
	for _, t := range p.types {
		if p.declared[t.name] && (len(t.methods) > 0 || len(t.fields) > 0) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
