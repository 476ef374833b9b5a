package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// listedPackage is what go list says about one package.
type listedPackage struct {
	ImportPath string
	Name       string
	Export     string
	GoFiles    []string
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// Compute returns the public API of the module rooted at dir, one sorted
// line per feature. It asks go list for the compiler's export data of the
// module's packages and their dependencies (from the build cache once they
// have been built) and reads the declarations from it.
func Compute(dir string) ([]string, error) {
	modulePath, err := mainModule(dir)
	if err != nil {
		return nil, err
	}
	all, err := goList(dir, "-json=ImportPath,Name,GoFiles,Module,Error", "./...")
	if err != nil {
		return nil, err
	}
	var targets, problems []string
	for _, p := range all {
		if p.Module == nil || p.Module.Path != modulePath || !public(p) {
			continue
		}
		if p.Error != nil {
			problems = append(problems, p.ImportPath+": "+p.Error.Err)
		}
		targets = append(targets, p.ImportPath)
	}
	// Only the recorded packages and what they import are compiled:
	// commands and examples are not.
	var deps []listedPackage
	if len(problems) == 0 && len(targets) > 0 {
		deps, err = goList(dir, append([]string{"-export", "-deps", "-json=ImportPath,Export,Error"}, targets...)...)
		if err != nil {
			return nil, err
		}
	}
	exports := map[string]string{}
	for _, p := range deps {
		exports[p.ImportPath] = p.Export
		if p.Error != nil {
			problems = append(problems, p.ImportPath+": "+p.Error.Err)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("the module does not build, so its API cannot be read:\n%s", strings.Join(problems, "\n"))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}
		return os.Open(file)
	})
	var lines []string
	for _, path := range targets {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("reading the export data of %s: %v", path, err)
		}
		lines = append(lines, Features(pkg, modulePath)...)
	}
	sort.Strings(lines)
	return lines, nil
}

// goList runs go list -e with args in dir and decodes its packages.
func goList(dir string, args ...string) ([]listedPackage, error) {
	cmd := exec.Command("go", append([]string{"list", "-e"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off") // this module alone, whatever workspace holds it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// public reports whether a package is part of the recorded API: not a
// command, not tests alone, and not under a directory named internal.
func public(p listedPackage) bool {
	if p.Name == "main" || len(p.GoFiles) == 0 {
		return false
	}
	for _, elem := range strings.Split(p.ImportPath, "/") {
		if elem == "internal" {
			return false
		}
	}
	return true
}

// mainModule returns the path of the module rooted at dir.
func mainModule(dir string) (string, error) {
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m in %s: %v", dir, err)
	}
	path := strings.TrimSpace(string(out))
	if path == "" || strings.Contains(path, "\n") {
		return "", errors.New("go list -m named no single main module in " + dir)
	}
	return path, nil
}
