package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every binary in examples/ explains itself with -h: a usage line, what it
// serves, and each of its flags.
func TestExamplesExplainThemselves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example")
	}
	t.Parallel()
	dirs, err := filepath.Glob("../../examples/*/main.go")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	out := t.TempDir()
	if b, err := exec.Command("go", "build", "-o", out+string(filepath.Separator), "../../examples/...").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	for _, m := range dirs {
		name := filepath.Base(filepath.Dir(m))
		bin := filepath.Join(out, name)
		if _, err := os.Stat(bin); err != nil {
			t.Errorf("%s: not built: %v", name, err)
			continue
		}
		b, _ := exec.Command(bin, "-h").CombinedOutput()
		help := string(b)
		usage, rest, _ := strings.Cut(help, "\n")
		if !strings.HasPrefix(usage, "usage: "+name) {
			t.Errorf("%s -h does not start with a usage line:\n%s", name, help)
			continue
		}
		// A paragraph that says what it is, naming itself.
		para, _, _ := strings.Cut(strings.TrimLeft(rest, "\n"), "\n\n")
		if len(strings.Fields(para)) < 15 || !strings.HasPrefix(strings.ToLower(para), strings.ToLower(name)) {
			t.Errorf("%s -h does not say what it does:\n%s", name, help)
		}
		// Each flag is listed with what it does.
		for _, f := range flagLine.FindAllStringSubmatch(help, -1) {
			if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(f[1]) + `\b.*\n    \t?\S`).MatchString(help) {
				t.Errorf("%s -h lists -%s without saying what it does", name, f[1])
			}
		}
	}
}
