package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// stdout is where the command says what it did.
var stdout io.Writer = os.Stdout

func main() {
	next := flag.String("next", "", "write api/next/`NAME`.txt with how the code differs from the record")
	release := flag.String("release", "", "write api/`vX.Y.Z`.txt with the recorded API and empty api/next")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), `apirecord keeps the record of the module's public API in api/.

Usage, from anywhere in the module:
	go run ./internal/apirecord              print how the code differs from the record
	go run ./internal/apirecord -next NAME   record that difference in api/next/NAME.txt
	go run ./internal/apirecord -release vX.Y.Z
	                                         fold the record into api/vX.Y.Z.txt at a release

Flags:
`)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *next != "" && *release != "" {
		flag.Usage()
		os.Exit(2)
	}
	root, err := moduleRoot()
	if err == nil {
		switch {
		case *next != "":
			err = writeNext(root, *next)
		case *release != "":
			err = writeRelease(root, *release)
		default:
			err = check(root)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apirecord:", err)
		os.Exit(1)
	}
}

// moduleRoot finds the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run this inside the module")
		}
		dir = parent
	}
}

func check(root string) error {
	r, err := ReadRecord(filepath.Join(root, "api"), "")
	if err != nil {
		return err
	}
	have, err := Compute(root)
	if err != nil {
		return err
	}
	added, removed := Diff(r.Lines, have)
	if len(added)+len(removed) == 0 {
		fmt.Fprintf(stdout, "the public API matches its record (%d declarations)\n", len(have))
		return nil
	}
	return errors.New(Explain(r, added, removed))
}

// writeNext writes api/next/NAME.txt so that the record matches the code,
// comparing the code with the record without that file: running it again
// gives the same file, and removes it when the code is back to the record.
func writeNext(root, name string) error {
	if !nextName.MatchString(name) {
		return fmt.Errorf("-next %q: name the change with letters, digits, '.', '_' or '-' (it becomes api/next/NAME.txt)", name)
	}
	apiDir := filepath.Join(root, "api")
	r, err := ReadRecord(apiDir, name)
	if err != nil {
		return err
	}
	have, err := Compute(root)
	if err != nil {
		return err
	}
	added, removed := Diff(r.Lines, have)
	file := filepath.Join(apiDir, "next", name+".txt")
	rel, _ := filepath.Rel(root, file)
	if len(added)+len(removed) == 0 {
		if err := os.Remove(file); err == nil {
			fmt.Fprintf(stdout, "removed %s: the code matches the record without it\n", rel)
		} else if !os.IsNotExist(err) {
			return err
		} else {
			fmt.Fprintln(stdout, "nothing to record: the public API matches its record")
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, []byte(FormatNext(name, added, removed)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d added, %d removed\n", rel, len(added), len(removed))
	return nil
}

// writeRelease writes api/VERSION.txt from the record, which must match
// the code, and removes the files of api/next it folded in.
func writeRelease(root, version string) error {
	if !releaseFile.MatchString(version + ".txt") {
		return fmt.Errorf("-release %q: give a version as vX.Y.Z", version)
	}
	apiDir := filepath.Join(root, "api")
	r, err := ReadRecord(apiDir, "")
	first := errors.Is(err, errNoRelease)
	if err != nil && !first {
		return err
	}
	have, err := Compute(root)
	if err != nil {
		return err
	}
	if first {
		r = &Record{}
		if err := os.MkdirAll(apiDir, 0o755); err != nil {
			return err
		}
	} else if added, removed := Diff(r.Lines, have); len(added)+len(removed) > 0 {
		return errors.New(Explain(r, added, removed) + "Record the change first, then run -release again.")
	}
	file := filepath.Join(apiDir, version+".txt")
	if err := os.WriteFile(file, []byte(FormatRelease(version, have)), 0o644); err != nil {
		return err
	}
	for _, f := range r.Next {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote api/%s.txt (%d declarations) and removed %d files of api/next\n", version, len(have), len(r.Next))
	return nil
}
