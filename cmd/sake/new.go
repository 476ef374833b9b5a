package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"text/template"
)

const newUsage = `usage: sake new [flags] DIR

New writes a new Go module into DIR (which must not exist or be empty):
an MCP server with a tool, a resource and a prompt (server.go) whose doc
comments are their descriptions (sake_gen.go, written by sake gen), their
tests in both protocol eras (server_test.go), a main that serves stdio or,
with -http ADDR, Streamable HTTP (main.go), a README, a Dockerfile and a CI
workflow. It then runs go mod tidy there, so that go test ./... passes at
once.

Flags may come before or after DIR.

Examples:

	sake new hello
	sake new -module github.com/you/notes notes
	sake new -replace ~/src/sake-go hello   # against a local checkout of sake-go
`

//go:embed templates/new
var newTemplates embed.FS

// goDirective is the go line of the new module: the version sake-go
// needs.
const goDirective = "1.26.0"

// newData fills the templates.
type newData struct {
	Module, Name, Scheme string
	GoVersion, DockerGo  string
	Replace              string // a local checkout of sake-go, absolute
	SakeVersion          string // the version to require without Replace
}

var modulePathRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~/-]*$`)

func runNew(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "new", newUsage)
	module := flags.String("module", "", "the module path (default: DIR's name, in lower case)")
	replace := flags.String("replace", "", "a local `checkout` of sake-go to use instead of a published version (a replace directive)")
	tidy := flags.Bool("tidy", true, "run go mod tidy in the new module")
	pos, err := parseInterspersed(flags, e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("name one directory: sake new [flags] DIR")
	}
	dir, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	d := newData{Module: *module, GoVersion: goDirective, DockerGo: "1.26"}
	if d.Module == "" {
		d.Module = programName(filepath.Base(dir))
	}
	if !modulePathRE.MatchString(d.Module) || strings.Contains(d.Module, "//") || strings.HasSuffix(d.Module, "/") {
		return usagef("-module %q is not a module path: use letters, digits and . _ ~ - /, for example github.com/you/%s", d.Module, programName(filepath.Base(dir)))
	}
	d.Name = programName(path.Base(d.Module))
	d.Scheme = strings.ReplaceAll(d.Name, "_", "-")
	if *replace != "" {
		r, err := checkout(*replace)
		if err != nil {
			return err
		}
		d.Replace = r
	} else if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == "github.com/sakemcp/sake-go" && strings.HasPrefix(bi.Main.Version, "v") {
		d.SakeVersion = bi.Main.Version
	}
	if err := emptyDir(dir); err != nil {
		return err
	}
	files, err := renderNew(d)
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", p)
	}
	// The descriptions from the doc comments, as go generate writes them.
	src, _, err := generateDocs(dir, genOutput)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, genOutput)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", p)
	if *tidy {
		cmd := exec.CommandContext(ctx, "go", "mod", "tidy")
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("the module is written, but go mod tidy failed in %s (%v):\n%s\nfix what it says and run go mod tidy there again", dir, err, strings.TrimSpace(out.String()))
		}
	}
	rel := pos[0]
	fmt.Fprintf(e.stdout, "\nNext:\n\n\tcd %s\n\tgo test ./...\n\tgo build -o bin/%s . && sake call bin/%s greet '{\"name\":\"Rui\"}'\n", rel, d.Name, d.Name)
	return nil
}

// parseInterspersed parses flags that may come before and after the
// positional arguments, and returns these ("--" ends the flags).
func parseInterspersed(fs *flag.FlagSet, e *env, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, e, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// checkout checks that dir is a checkout of sake-go and returns its
// absolute path.
func checkout(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil || !regexp.MustCompile(`(?m)^module github\.com/sakemcp/sake-go\s*$`).Match(b) {
		return "", fmt.Errorf("-replace %s: not a checkout of github.com/sakemcp/sake-go (its go.mod should say module github.com/sakemcp/sake-go)", dir)
	}
	return abs, nil
}

// emptyDir checks that dir does not exist or is an empty directory.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return fmt.Errorf("%s is a file: choose a new directory", dir)
		}
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty: choose a new directory (nothing was written)", dir)
	}
	return nil
}

// programName turns a name into a program and server name: lower case,
// letters, digits, - and _ ("My Server" -> "my-server").
func programName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', b.Len() > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_'):
			b.WriteRune(r)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-_")
	if out == "" {
		return "server"
	}
	return out
}

type newFile struct {
	name string
	data []byte
}

// renderNew renders every template: NAME.tmpl becomes NAME, and
// gitignore and github/ get their leading dot (embed leaves out dot
// files).
func renderNew(d newData) ([]newFile, error) {
	var files []newFile
	err := fs.WalkDir(newTemplates, "templates/new", func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		src, err := newTemplates.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(p, "templates/new/"), ".tmpl")
		if name == "gitignore" || strings.HasPrefix(name, "github/") {
			name = "." + name
		}
		t, err := template.New(name).Delims("[[", "]]").Option("missingkey=error").Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		files = append(files, newFile{name, b.Bytes()})
		return nil
	})
	return files, err
}
