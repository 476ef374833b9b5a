package main

import (
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// goEnv is the environment of the go commands run in a new module.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false")
}

func TestNewModulePasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	t.Parallel()
	checkoutDir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "hello")
	// Flags after DIR are taken too.
	r := sakeRun(t, "", nil, "new", dir, "-module", "example.com/hello-mcp", "-replace", checkoutDir)
	if r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	want := ".github/workflows/ci.yml .gitignore Dockerfile README.md go.mod go.sum main.go sake_gen.go server.go server_test.go"
	if strings.Join(files, " ") != want {
		t.Errorf("files %v, want %s", files, want)
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.Contains(string(mod), "module example.com/hello-mcp\n") || !strings.Contains(string(mod), "replace github.com/sakemcp/sake-go => "+checkoutDir) {
		t.Errorf("go.mod:\n%s", mod)
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, goEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %v in the new module: %v\n%s", args, err, out)
		}
		if args[0] == "test" && !strings.Contains(string(out), "ok  \texample.com/hello-mcp") {
			t.Errorf("go test: %s", out)
		}
	}
	// sake_gen.go is fresh.
	if r := sakeRun(t, "", nil, "gen", "-check", dir); r.code != exitOK {
		t.Errorf("gen -check: %+v", r)
	}
	// Its tests run in both eras.
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "TestGreet", ".")
	cmd.Dir, cmd.Env = dir, goEnv()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestGreet/modern") || !strings.Contains(string(out), "--- PASS: TestGreet/legacy") {
		t.Errorf("go test -v: %v\n%s", err, out)
	}
	// The server serves stdio: sake calls it.
	bin := filepath.Join(dir, "bin", "hello-mcp")
	cmd = exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Env = dir, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if r := sakeRun(t, "", nil, "call", bin, "greet", `{"name":"Rui"}`); r.code != exitOK || r.stdout != "Hello, Rui!\n" {
		t.Errorf("call: %+v", r)
	}
	if r := sakeRun(t, "", nil, "inspect", bin); r.code != exitOK || !strings.Contains(r.stdout, "hello-mcp 0.1.0") || !strings.Contains(r.stdout, "hello-mcp://about") || !strings.Contains(r.stdout, "review(code, language?)") {
		t.Errorf("inspect: %+v", r)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	for _, want := range []string{"# hello-mcp", "bin/hello-mcp -http 127.0.0.1:8080", "sake install claude-desktop bin/hello-mcp", "drop the `replace` line"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("the README lacks %q", want)
		}
	}
}

func TestRenderNew(t *testing.T) {
	t.Parallel()
	for _, d := range []newData{
		{Module: "example.com/a", Name: "a", Scheme: "a", GoVersion: goDirective, DockerGo: "1.26", SakeVersion: "v1.2.3"},
		{Module: "b", Name: "b", Scheme: "b", GoVersion: goDirective, DockerGo: "1.26"},
		{Module: "c", Name: "c", Scheme: "c", GoVersion: goDirective, DockerGo: "1.26", Replace: "/src/sake-go"},
	} {
		files, err := renderNew(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.Contains(string(f.data), "[[") || strings.Contains(string(f.data), "<no value>") {
				t.Errorf("%s: a template action is left:\n%s", f.name, f.data)
			}
			if strings.HasSuffix(f.name, ".go") {
				if formatted, err := format.Source(f.data); err != nil || string(formatted) != string(f.data) {
					t.Errorf("%s is not gofmt'd (%v)", f.name, err)
				}
			}
			if f.name == ".github/workflows/ci.yml" && (!strings.Contains(string(f.data), "run: go tool sake gen -check") || strings.Contains(string(f.data), "@latest")) {
				t.Errorf("the CI does not run the sake of go.mod's version:\n%s", f.data)
			}
			if f.name != "go.mod" {
				continue
			}
			if !strings.Contains(string(f.data), "\ntool github.com/sakemcp/sake-go/cmd/sake\n") {
				t.Errorf("go.mod has no tool line for sake:\n%s", f.data)
			}
			mod := string(f.data)
			switch {
			case d.SakeVersion != "" && !strings.Contains(mod, "require github.com/sakemcp/sake-go v1.2.3\n"):
				t.Errorf("with a version:\n%s", mod)
			case d.Replace != "" && !strings.Contains(mod, "replace github.com/sakemcp/sake-go => /src/sake-go\n"):
				t.Errorf("with a checkout:\n%s", mod)
			case d.Replace == "" && d.SakeVersion == "" && strings.Contains(mod, "require"):
				t.Errorf("with neither, go mod tidy finds the version:\n%s", mod)
			}
		}
	}
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	full := filepath.Join(base, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"new"}, exitUsage, "name one directory"},
		{[]string{"new", "a", "b"}, exitUsage, "name one directory"},
		{[]string{"new", "-module", "bad path", filepath.Join(base, "x")}, exitUsage, `-module "bad path" is not a module path`},
		{[]string{"new", filepath.Join(base, "x"), "-module", "example.com//x"}, exitUsage, "is not a module path"},
		{[]string{"new", "-tidy=false", full}, exitFail, "is not empty"},
		{[]string{"new", "-tidy=false", file}, exitFail, "is a file"},
		{[]string{"new", "-tidy=false", "-replace", base, filepath.Join(base, "y")}, exitFail, "not a checkout of github.com/sakemcp/sake-go"},
	} {
		r := sakeRun(t, "", nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
	entries, _ := os.ReadDir(full)
	if len(entries) != 1 {
		t.Errorf("a refused new wrote into %s: %v", full, entries)
	}
	assertNoFile(t, filepath.Join(base, "x"))
	assertNoFile(t, filepath.Join(base, "y"))
}

func TestNewWithoutTidy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "My Server")
	r := sakeRun(t, "", nil, "new", "-tidy=false", dir)
	if r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !strings.HasPrefix(string(mod), "module my-server\n") {
		t.Errorf("go.mod:\n%s", mod)
	}
	assertNoFile(t, filepath.Join(dir, "go.sum"))
	if !strings.Contains(string(main), `sake.Name("my-server", "0.1.0")`) {
		t.Errorf("main.go names the server:\n%s", main)
	}
}

func TestProgramName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"hello": "hello", "My Server": "my-server", "hello-mcp": "hello-mcp", "9lives": "lives", "---": "server", "a_b.c": "a_b-c"} {
		if got := programName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
