package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	stdout = io.Discard
	os.Exit(m.Run())
}

// TestPublicAPIMatchesRecord is the check that keeps the public API a
// promise: a declaration added, removed or changed without a record in
// api/ fails here, with the lines and the command that records them.
func TestPublicAPIMatchesRecord(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadRecord(filepath.Join(root, "api"), "")
	if err != nil {
		t.Fatal(err)
	}
	have, err := Compute(root)
	if err != nil {
		t.Fatal(err)
	}
	if added, removed := Diff(r.Lines, have); len(added)+len(removed) > 0 {
		t.Fatal(Explain(r, added, removed))
	}
}

// features type-checks one file of package p (importing nothing) and
// returns its features.
func features(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package p\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("example.com/m/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Features(pkg, "example.com/m")
}

func TestFeaturesNameEverySignatureChange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, old, new string
		added, removed []string // nil for no change
	}{
		{
			name:    "parameter type",
			old:     "func F(a int) error { return nil }",
			new:     "func F(a int64) error { return nil }",
			added:   []string{"pkg p, func F(int64) error"},
			removed: []string{"pkg p, func F(int) error"},
		},
		{
			name: "parameter renamed is no change",
			old:  "func F(a int, rest ...string) (int, error) { return 0, nil }",
			new:  "func F(b int, more ...string) (n int, err error) { return 0, nil }",
		},
		{
			name:    "variadic",
			old:     "func F(a []string) {}",
			new:     "func F(a ...string) {}",
			added:   []string{"pkg p, func F(...string)"},
			removed: []string{"pkg p, func F([]string)"},
		},
		{
			name:    "struct field type",
			old:     "type T struct{ A int; b string }",
			new:     "type T struct{ A uint; b string }",
			added:   []string{"pkg p, type T struct, A uint"},
			removed: []string{"pkg p, type T struct, A int"},
		},
		{
			name: "unexported field is no change",
			old:  "type T struct{ A int }",
			new:  "type T struct{ A int; b string }",
		},
		{
			name:  "method on the pointer",
			old:   "type T struct{}",
			new:   "type T struct{}\nfunc (*T) M(x int) {}",
			added: []string{"pkg p, method (*T) M(int)"},
		},
		{
			name:    "receiver from pointer to value",
			old:     "type T struct{}\nfunc (*T) M() {}",
			new:     "type T struct{}\nfunc (T) M() {}",
			added:   []string{"pkg p, method (T) M()"},
			removed: []string{"pkg p, method (*T) M()"},
		},
		{
			name:  "promoted method",
			old:   "type E struct{}\ntype T struct{ E }",
			new:   "type E struct{}\nfunc (E) M() {}\ntype T struct{ E }",
			added: []string{"pkg p, method (E) M()", "pkg p, method (T) M()"},
		},
		{
			name:    "interface method",
			old:     "type I interface{ M(int) }",
			new:     "type I interface{ M(int); N() }",
			added:   []string{"pkg p, type I interface { M, N }", "pkg p, type I interface, N()"},
			removed: []string{"pkg p, type I interface { M }"},
		},
		{
			name:    "sealed interface",
			old:     "type I interface{ M() }",
			new:     "type I interface{ M(); m() }",
			added:   []string{"pkg p, type I interface { M, unexported methods }", "pkg p, type I interface, unexported methods"},
			removed: []string{"pkg p, type I interface { M }"},
		},
		{
			name:    "constant value",
			old:     "const C = 1",
			new:     "const C = 2",
			added:   []string{"pkg p, const C untyped int = 2"},
			removed: []string{"pkg p, const C untyped int = 1"},
		},
		{
			name:    "variable type",
			old:     "var V map[string]func(a int) error",
			new:     "var V map[string]func(a int) bool",
			added:   []string{"pkg p, var V map[string]func(int) bool"},
			removed: []string{"pkg p, var V map[string]func(int) error"},
		},
		{
			name:    "alias target",
			old:     "type A = int",
			new:     "type A = string",
			added:   []string{"pkg p, type A = string"},
			removed: []string{"pkg p, type A = int"},
		},
		{
			name:    "type parameter constraint",
			old:     "func F[T any](T) {}",
			new:     "func F[T comparable](T) {}",
			added:   []string{"pkg p, func F[T comparable](T)"},
			removed: []string{"pkg p, func F[T any](T)"},
		},
		{
			name:    "removed",
			old:     "func F() {}\nfunc G() {}",
			new:     "func G() {}",
			removed: []string{"pkg p, func F()"},
		},
		{
			name: "unexported is not recorded",
			old:  "func f() {}",
			new:  "func f(int) {}\ntype t struct{ A int }",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			added, removed := Diff(features(t, c.old), features(t, c.new))
			if !slices.Equal(added, c.added) || !slices.Equal(removed, c.removed) {
				t.Errorf("added %q, removed %q; want added %q, removed %q", added, removed, c.added, c.removed)
			}
		})
	}
}

func TestFeaturesSpellOtherPackages(t *testing.T) {
	t.Parallel()
	got := features(t, "type H struct{ F func(x []*T, y chan<- error) (map[string]any, bool) }\ntype T struct{}")
	want := "pkg p, type H struct, F func([]*T, chan<- error) (map[string]any, bool)"
	if !slices.Contains(got, want) {
		t.Errorf("features %q lack %q", got, want)
	}
}

// writeAPI writes files under a new api directory and returns it.
func writeAPI(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "api")
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRecordAppliesNextFilesInAnyOrder(t *testing.T) {
	t.Parallel()
	dir := writeAPI(t, map[string]string{
		"v0.1.0.txt": "# old\npkg a, func Old()\npkg a, func F(int)\n",
		"v0.2.0.txt": "pkg a, func F(int)\npkg a, func Kept()\n",
		// a.txt changes F; z.txt adds G, and b.txt removes it again.
		"next/a.txt": "# change\n-pkg a, func F(int)\npkg a, func F(string)\n",
		"next/b.txt": "-pkg a, func G()\n",
		"next/z.txt": "pkg a, func G()\n",
	})
	r, err := ReadRecord(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pkg a, func F(string)", "pkg a, func Kept()"}
	if !slices.Equal(r.Lines, want) {
		t.Errorf("record %q, want %q (the newest release with every next file)", r.Lines, want)
	}
	if filepath.Base(r.Baseline) != "v0.2.0.txt" || len(r.Next) != 3 {
		t.Errorf("baseline %s and next %q", r.Baseline, r.Next)
	}

	r, err = ReadRecord(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pkg a, func F(int)", "pkg a, func Kept()"}; !slices.Equal(r.Lines, want) {
		t.Errorf("record without a.txt %q, want %q", r.Lines, want)
	}
}

func TestRecordRefusesContradictions(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string]string{
		"removed twice": {
			"v1.0.0.txt": "pkg a, func F(int)\n",
			"next/x.txt": "-pkg a, func F(int)\npkg a, func F(string)\n",
			"next/y.txt": "-pkg a, func F(int)\npkg a, func F(bool)\n",
		},
		"added twice": {
			"v1.0.0.txt": "pkg a, func F(int)\n",
			"next/x.txt": "pkg a, func F(int)\n",
		},
		"not a feature": {
			"v1.0.0.txt": "func F(int)\n",
		},
		"no release": {
			"next/x.txt": "pkg a, func F(int)\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			if r, err := ReadRecord(writeAPI(t, files), ""); err == nil {
				t.Errorf("record %q read without an error", r.Lines)
			} else if !strings.Contains(err.Error(), "apirecord") && !strings.Contains(err.Error(), "pkg ") {
				t.Errorf("the error %q says neither the line nor what to run", err)
			}
		})
	}
}

// TestNextIsIdempotent runs the command's steps on a module of its own:
// recording a change twice gives the same file, and a change undone
// removes it.
func TestNextIsIdempotent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("m.go", "// Package m is a fixture.\npackage m\n\n// F is a fixture.\nfunc F(int) {}\n")
	if err := writeRelease(root, "v1.0.0"); err != nil {
		t.Fatal(err)
	}
	write("m.go", "// Package m is a fixture.\npackage m\n\n// F is a fixture.\nfunc F(string) {}\n\n// G is new.\nfunc G() {}\n")
	next := filepath.Join(root, "api", "next", "change.txt")
	var contents []string
	for range 2 {
		if err := writeNext(root, "change"); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(next)
		if err != nil {
			t.Fatal(err)
		}
		contents = append(contents, string(b))
	}
	if contents[0] != contents[1] {
		t.Errorf("a second -next wrote\n%s\nafter\n%s", contents[1], contents[0])
	}
	for _, line := range []string{"-pkg example.com/m, func F(int)\n", "\npkg example.com/m, func F(string)\n", "\npkg example.com/m, func G()\n"} {
		if !strings.Contains(contents[0], line) {
			t.Errorf("api/next/change.txt lacks %q:\n%s", line, contents[0])
		}
	}
	if err := check(root); err != nil {
		t.Errorf("the record with api/next/change.txt does not match the code: %v", err)
	}
	write("m.go", "// Package m is a fixture.\npackage m\n\n// F is a fixture.\nfunc F(int) {}\n")
	if err := writeNext(root, "change"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(next); !os.IsNotExist(err) {
		t.Errorf("api/next/change.txt still there once the code is back to the release: %v", err)
	}
	if err := writeNext(root, "../escape"); err == nil {
		t.Error("-next ../escape accepted")
	}
}

func TestExplainPairsChangedDeclarations(t *testing.T) {
	t.Parallel()
	removed := []string{
		"pkg p, func F(int) error",
		"pkg p, method (*T) M(int)",
		"pkg p, type S struct, A int",
		"pkg p, const C untyped int = 1",
		"pkg p, func Gone()",
	}
	added := []string{
		"pkg p, func F(int64) error",
		"pkg p, method (T) M(int)",
		"pkg p, type S struct, A uint",
		"pkg p, const C untyped int = 2",
		"pkg p, func New()",
	}
	text := Explain(&Record{Baseline: "api/v1.0.0.txt"}, added, removed)
	for _, want := range []string{
		"changed:\n\t- pkg p, func F(int) error\n\t+ pkg p, func F(int64) error\n",
		"changed:\n\t- pkg p, method (*T) M(int)\n\t+ pkg p, method (T) M(int)\n",
		"changed:\n\t- pkg p, type S struct, A int\n\t+ pkg p, type S struct, A uint\n",
		"changed:\n\t- pkg p, const C untyped int = 1\n\t+ pkg p, const C untyped int = 2\n",
		"added:   pkg p, func New()\n",
		"removed: pkg p, func Gone()\n",
		"go run ./internal/apirecord -next NAME",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, text)
		}
	}
}
