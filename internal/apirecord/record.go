package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Record is the recorded API: the newest release's file in api/ with
// every file of api/next applied.
type Record struct {
	Baseline string   // the release's file, as api/vX.Y.Z.txt
	Next     []string // the files of api/next applied, as api/next/NAME.txt
	Lines    []string // the recorded features, sorted
}

// errNoRelease is the error of a record with no release file yet.
var errNoRelease = errors.New("no release recorded")

var releaseFile = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)\.txt$`)

// nextName is what a file of api/next may be called, without ".txt".
var nextName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Baseline returns the newest release file in apiDir and its version.
func Baseline(apiDir string) (file, version string, err error) {
	entries, err := os.ReadDir(apiDir)
	if err != nil {
		if os.IsNotExist(err) {
			return "", "", fmt.Errorf("no API record in %s: write the first with go run ./internal/apirecord -release vX.Y.Z: %w", apiDir, errNoRelease)
		}
		return "", "", fmt.Errorf("reading the API record: %v", err)
	}
	var best [3]int
	for _, e := range entries {
		m := releaseFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		var v [3]int
		for i := range v {
			v[i], _ = strconv.Atoi(m[i+1])
		}
		if file == "" || v[0] > best[0] || v[0] == best[0] && (v[1] > best[1] || v[1] == best[1] && v[2] > best[2]) {
			best, file = v, e.Name()
		}
	}
	if file == "" {
		return "", "", fmt.Errorf("%s holds no release file (vX.Y.Z.txt): write the first with go run ./internal/apirecord -release vX.Y.Z: %w", apiDir, errNoRelease)
	}
	return filepath.Join(apiDir, file), strings.TrimSuffix(file, ".txt"), nil
}

// ReadRecord reads the record in apiDir, leaving out api/next/skip.txt
// when skip is not empty. The next files are applied as counts, so their
// order does not matter: a line is recorded when the baseline and the
// files add it once more than they remove it. Any other count is an error
// naming the files, which a merge of two branches that changed the same
// declaration can cause.
func ReadRecord(apiDir, skip string) (*Record, error) {
	base, _, err := Baseline(apiDir)
	if err != nil {
		return nil, err
	}
	r := &Record{Baseline: base}
	count := map[string]int{}
	where := map[string][]string{}
	if err := readFile(base, false, func(line string, add bool) {
		count[line]++
		where[line] = append(where[line], base)
	}); err != nil {
		return nil, err
	}
	next, err := filepath.Glob(filepath.Join(apiDir, "next", "*.txt"))
	if err != nil {
		return nil, err
	}
	sort.Strings(next)
	for _, file := range next {
		if skip != "" && filepath.Base(file) == skip+".txt" {
			continue
		}
		r.Next = append(r.Next, file)
		if err := readFile(file, true, func(line string, add bool) {
			if add {
				count[line]++
			} else {
				count[line]--
			}
			where[line] = append(where[line], file)
		}); err != nil {
			return nil, err
		}
	}
	var bad []string
	for line, n := range count {
		switch n {
		case 0:
		case 1:
			r.Lines = append(r.Lines, line)
		default:
			verb := "added"
			if n < 0 {
				verb = "removed"
			}
			bad = append(bad, fmt.Sprintf("%s\n\t%s more often than once, by %s", line, verb, strings.Join(where[line], ", ")))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("the API record contradicts itself (two changes to the same declaration?):\n%s\nDelete the api/next files of those changes and write one again with go run ./internal/apirecord -next NAME",
			strings.Join(bad, "\n"))
	}
	sort.Strings(r.Lines)
	return r, nil
}

// readFile calls f for each feature line of file. In a release file
// every line is a feature; in a next file a line starting with "-" is a
// feature removed. Empty lines and lines starting with "#" are comments.
func readFile(file string, next bool, f func(line string, add bool)) error {
	fh, err := os.Open(file)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		add := true
		if next {
			if rest, ok := strings.CutPrefix(line, "-"); ok {
				line, add = strings.TrimSpace(rest), false
			}
		}
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case !strings.HasPrefix(line, "pkg "):
			return fmt.Errorf("%s:%d: a feature line starts with \"pkg \" (or \"-pkg \" in api/next to remove one): %q", file, n, sc.Text())
		}
		f(line, add)
	}
	return sc.Err()
}

// Diff returns the lines of have missing from want (added) and of want
// missing from have (removed); both are sorted.
func Diff(want, have []string) (added, removed []string) {
	inWant := make(map[string]bool, len(want))
	for _, l := range want {
		inWant[l] = true
	}
	inHave := make(map[string]bool, len(have))
	for _, l := range have {
		inHave[l] = true
		if !inWant[l] {
			added = append(added, l)
		}
	}
	for _, l := range want {
		if !inHave[l] {
			removed = append(removed, l)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

// FormatNext is the content of a next file recording the change from the
// record to the code.
func FormatNext(name string, added, removed []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# API change %q, written by go run ./internal/apirecord -next %s\n", name, name)
	b.WriteString("# \"pkg ...\" is a declaration added, \"-pkg ...\" one removed; a changed one is both.\n")
	for _, l := range removed {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range added {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// FormatRelease is the content of the release file of version.
func FormatRelease(version string, lines []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The public API of release %s: one line per exported declaration of every\n", version)
	b.WriteString("# package that is neither a command nor internal. Changes since are in api/next.\n")
	b.WriteString("# Written by go run ./internal/apirecord -release " + version + "; see docs/migrating.md.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// Explain says how the code differs from the record and what to run:
// declarations changed (their old and new lines), added and removed.
func Explain(r *Record, added, removed []string) string {
	var b strings.Builder
	files := "api/" + filepath.Base(r.Baseline)
	if len(r.Next) > 0 {
		files += " with api/next/*.txt"
	}
	fmt.Fprintf(&b, "the public API differs from its record (%s):\n", files)
	changed, added, removed := pairChanges(added, removed)
	for _, c := range changed {
		fmt.Fprintf(&b, "changed:\n\t- %s\n\t+ %s\n", c[0], c[1])
	}
	for _, l := range added {
		b.WriteString("added:   " + l + "\n")
	}
	for _, l := range removed {
		b.WriteString("removed: " + l + "\n")
	}
	b.WriteString(`If the change is meant, record it from the module's root with
	go run ./internal/apirecord -next NAME
which writes api/next/NAME.txt (NAME names the change, e.g. your branch; run it again after more
changes), and add a line to the Unreleased section of CHANGELOG.md. If it is not meant, restore the
declaration; a renamed name keeps its old name as a // Deprecated: alias (docs/migrating.md).
`)
	return b.String()
}

// pairChanges finds the declarations that were changed rather than added
// or removed: a removed and an added line of the same declaration (see
// declKey). What is left is returned as added and removed.
func pairChanges(added, removed []string) (changed [][2]string, onlyAdded, onlyRemoved []string) {
	byKey := map[string][]string{}
	for _, l := range removed {
		byKey[declKey(l)] = append(byKey[declKey(l)], l)
	}
	paired := map[string]bool{}
	for _, l := range added {
		k := declKey(l)
		if olds := byKey[k]; len(olds) == 1 && !paired[k] {
			paired[k] = true
			changed = append(changed, [2]string{olds[0], l})
			continue
		}
		onlyAdded = append(onlyAdded, l)
	}
	for _, l := range removed {
		if !paired[declKey(l)] {
			onlyRemoved = append(onlyRemoved, l)
		}
	}
	return changed, onlyAdded, onlyRemoved
}

// declKey names the declaration a feature line is about, without what
// can change in it: "pkg P, func F", "pkg P, method T.M", "pkg P, type T
// struct, Field", "pkg P, const C".
func declKey(line string) string {
	pkg, rest, _ := strings.Cut(line, ", ")
	cut := func(s string, seps string) string {
		if i := strings.IndexAny(s, seps); i >= 0 {
			return s[:i]
		}
		return s
	}
	switch {
	case strings.HasPrefix(rest, "func "):
		return pkg + ", func " + cut(rest[len("func "):], "[(")
	case strings.HasPrefix(rest, "method ("):
		recv, name, _ := strings.Cut(rest[len("method ("):], ") ")
		recv = strings.TrimPrefix(cut(recv, "["), "*")
		return pkg + ", method " + recv + "." + cut(name, "(")
	case strings.HasPrefix(rest, "const "), strings.HasPrefix(rest, "var "):
		kind, name, _ := strings.Cut(rest, " ")
		return pkg + ", " + kind + " " + cut(name, " ")
	case strings.HasPrefix(rest, "type "):
		head, member, ok := strings.Cut(rest, ", ")
		name := cut(head[len("type "):], " [=")
		if !ok {
			return pkg + ", type " + name
		}
		if strings.HasPrefix(member, "embedded ") || member == "unexported methods" {
			return line
		}
		return pkg + ", type " + name + " member " + cut(member, " (")
	}
	return line
}
