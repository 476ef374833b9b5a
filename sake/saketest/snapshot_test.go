package saketest_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// updateFlag is the kind of -update flag a test package defines for its
// own golden files; Snapshot honours it.
var updateFlag = flag.Bool("update", false, "rewrite golden files")

// failureLog is a testing.TB that records failures instead of failing.
type failureLog struct {
	testing.TB
	mu       sync.Mutex
	failures []string
	fatal    bool
}

func (r *failureLog) Helper() {}

func (r *failureLog) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *failureLog) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.mu.Lock()
	r.fatal = true
	r.mu.Unlock()
}

func (r *failureLog) Logf(string, ...any) {}

func (r *failureLog) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.failures, "\n")
}

type catalog struct{}

type findArgs struct {
	Query string `json:"query" jsonschema:"description=What to look for"`
}

func (catalog) Find(ctx *sake.Context, a findArgs) (string, error) { return "", nil }
func (catalog) Readme(ctx *sake.Context) (string, error)           { return "", nil }

func (catalog) Declare(d *sake.Declarations) {
	d.Tool("Find").ReadOnly().Description("Finds products.")
	d.Resource("Readme", "catalog://readme")
}

type renamedCatalog struct{}

type findArgsV2 struct {
	Query string `json:"query" jsonschema:"description=What to look for"`
	Limit int    `json:"limit,omitempty"`
}

func (renamedCatalog) Find(ctx *sake.Context, a findArgsV2) (string, error) { return "", nil }
func (renamedCatalog) Readme(ctx *sake.Context) (string, error)             { return "", nil }

func (renamedCatalog) Declare(d *sake.Declarations) {
	d.Tool("Find").ReadOnly().Description("Finds products.")
	d.Resource("Readme", "catalog://readme")
}

func TestSnapshotUpdateWritesThenMatches(t *testing.T) {
	file := filepath.Join(t.TempDir(), "testdata", "surface.json")
	t.Setenv(saketest.UpdateEnv, "1")
	r := &failureLog{TB: t}
	saketest.Snapshot(r, catalog{}, file)
	if r.report() != "" {
		t.Fatalf("-update failed: %s", r.report())
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"snapshot": 1`, `"protocolVersion": "2026-07-28"`, `"name": "find"`, `"readOnlyHint": true`,
		`"description": "What to look for"`, `"uri": "catalog://readme"`} {
		if !strings.Contains(string(first), want) {
			t.Errorf("the golden file lacks %s:\n%s", want, first)
		}
	}
	// Updating again writes the same bytes.
	saketest.Snapshot(r, catalog{}, file)
	if again, _ := os.ReadFile(file); string(again) != string(first) || r.report() != "" {
		t.Errorf("a second update changed the file or failed: %s", r.report())
	}
	// Without the variable, the same server matches.
	t.Setenv(saketest.UpdateEnv, "0")
	saketest.Snapshot(r, catalog{}, file)
	if r.report() != "" {
		t.Errorf("the same server does not match: %s", r.report())
	}
	// A *sake.Server is taken too.
	saketest.Snapshot(r, sake.MustNew(catalog{}), file)
	if r.report() != "" {
		t.Errorf("the *sake.Server does not match: %s", r.report())
	}
}

func TestSnapshotMismatchFailsWithADiff(t *testing.T) {
	file := filepath.Join(t.TempDir(), "surface.json")
	writeGolden(t, catalog{}, file)
	before, _ := os.ReadFile(file)

	r := &failureLog{TB: t}
	saketest.Snapshot(r, renamedCatalog{}, file)
	got := r.report()
	if r.fatal || got == "" {
		t.Fatalf("fatal %v, failures %q", r.fatal, got)
	}
	for _, want := range []string{
		"the server's surface differs from " + file,
		"~ tool find changed:",
		`+       "limit": {`,
		"If the change is meant, accept it by running the test with SAKETEST_UPDATE=1.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the failure lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "catalog://readme") {
		t.Errorf("the diff shows a resource that did not change:\n%s", got)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("the comparison changed the file")
	}
}

func TestSnapshotOtherEraDiffers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "surface.json")
	writeGolden(t, catalog{}, file)
	r := &failureLog{TB: t}
	saketest.Snapshot(r, catalog{}, file, saketest.Legacy())
	if got := r.report(); !strings.Contains(got, "~ protocol revision 2025-11-25, was 2026-07-28") {
		t.Errorf("failure %q", got)
	}
}

func TestSnapshotRefusesMissingOrForeignFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.json")
	if err := os.WriteFile(foreign, []byte(`{"tools":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"snapshot":1,`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	for file, want := range map[string]string{
		missing: "missing.json does not exist: write it by running the test with SAKETEST_UPDATE=1",
		foreign: "foreign.json is not a surface snapshot",
		broken:  "broken.json is not a surface snapshot",
	} {
		r := &failureLog{TB: t}
		saketest.Snapshot(r, catalog{}, file)
		if !r.fatal || !strings.Contains(r.report(), want) {
			t.Errorf("%s: fatal %v, %q; want %q", filepath.Base(file), r.fatal, r.report(), want)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the missing file was written: %v", err)
	}
}

func TestSnapshotHonoursAnUpdateFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "surface.json")
	t.Setenv(saketest.UpdateEnv, "")
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("update", "false")
	r := &failureLog{TB: t}
	saketest.Snapshot(r, catalog{}, file)
	if _, err := os.Stat(file); err != nil || r.report() != "" || !*updateFlag {
		t.Errorf("the -update flag did not write the file: %v, %s", err, r.report())
	}
}

// writeGolden writes the golden file of impl, as an update does (so
// the tests that use it set the environment and cannot be parallel).
func writeGolden(t *testing.T, impl any, file string) {
	t.Helper()
	t.Setenv(saketest.UpdateEnv, "1")
	r := &failureLog{TB: t}
	saketest.Snapshot(r, impl, file)
	if r.report() != "" {
		t.Fatal(r.report())
	}
	t.Setenv(saketest.UpdateEnv, "")
}
