package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"installed at a tag", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.3.0"}}, "v0.3.0"},
		{"built in a checkout", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.3.1-0.20261207021500-0123456789ab+dirty"}}, "v0.3.1-0.20261207021500-0123456789ab+dirty"},
		{"not stamped", &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, releaseVersion + " (devel)"},
		{"linked into another program", &debug.BuildInfo{
			Main: debug.Module{Path: "example.com/tools", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "golang.org/x/mod", Version: "v0.20.0"}, {Path: modulePath, Version: "v0.2.0"}},
		}, "v0.2.0"},
		{"replaced by a directory", &debug.BuildInfo{
			Main: debug.Module{Path: "example.com/tools"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v0.2.0", Replace: &debug.Module{Path: "../sake-go"}}},
		}, releaseVersion + " (devel)"},
		{"no build information", nil, releaseVersion + " (devel)"},
	} {
		if got := moduleVersion(c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	r := sakeRun(t, "", nil, "version")
	// The test binary has no module version of its own.
	if r.code != exitOK || r.stdout != "sake "+releaseVersion+" (devel)\n" || r.stderr != "" {
		t.Errorf("sake version: %+v", r)
	}
	r = sakeRun(t, "", nil, "version", "-v")
	if r.code != exitOK || !strings.Contains(r.stdout, "\ngo go1.") {
		t.Errorf("sake version -v: %+v", r)
	}
	r = sakeRun(t, "", nil, "version", "extra")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no arguments") {
		t.Errorf("sake version extra: %+v", r)
	}
}

// TestReleaseVersionMatchesRecord keeps the three places a release is
// named in step: the version constant, the newest file of api/ and the
// newest version heading of CHANGELOG.md. A release changes all three in
// one commit, which gets the tag.
func TestReleaseVersionMatchesRecord(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "api", "v*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no release file in api/ (%v)", err)
	}
	var versions []string
	for _, f := range files {
		versions = append(versions, strings.TrimSuffix(filepath.Base(f), ".txt"))
	}
	if newest := newestVersion(t, versions); newest != releaseVersion {
		t.Errorf("the newest release file is api/%s.txt, but releaseVersion is %s: a release sets both (and CHANGELOG.md's heading)", newest, releaseVersion)
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindAllStringSubmatch(string(changelog), -1)
	if len(headings) == 0 {
		t.Fatal("CHANGELOG.md has no release heading like ## [0.1.0] - 2026-12-07")
	}
	if top := "v" + headings[0][1]; top != releaseVersion {
		t.Errorf("CHANGELOG.md's newest release is %s, but releaseVersion is %s", top, releaseVersion)
	}
	if !strings.Contains(string(changelog), "\n## [Unreleased]\n") {
		t.Error("CHANGELOG.md has no ## [Unreleased] section for the changes since the release")
	}
}

// newestVersion returns the highest of vX.Y.Z versions.
func newestVersion(t *testing.T, versions []string) string {
	t.Helper()
	parse := func(v string) [3]int {
		parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
		if len(parts) != 3 {
			t.Fatalf("%q is not vX.Y.Z", v)
		}
		var n [3]int
		for i, p := range parts {
			var err error
			if n[i], err = strconv.Atoi(p); err != nil {
				t.Fatalf("%q is not vX.Y.Z", v)
			}
		}
		return n
	}
	best := versions[0]
	for _, v := range versions[1:] {
		a, b := parse(v), parse(best)
		if a[0] > b[0] || a[0] == b[0] && (a[1] > b[1] || a[1] == b[1] && a[2] > b[2]) {
			best = v
		}
	}
	return best
}
