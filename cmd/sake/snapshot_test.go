package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/internal/surface"
)

func TestSnapshotWritesAndMatches(t *testing.T) {
	t.Parallel()
	cmd := fixtureCommand(t)
	url := serveFixtureHTTP(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "testdata", "surface.json")
	r := sakeRun(t, "", nil, append(append([]string{"snapshot", "-update"}, cmd...), file)...)
	if r.code != exitOK || !strings.Contains(r.stdout, "wrote "+file+": 6 tools, 1 resources, 1 resource templates, 1 prompts") {
		t.Fatalf("-update: %+v", r)
	}
	first, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The file is sorted and says what clients depend on.
	var g surface.Golden
	if err := json.Unmarshal(first, &g); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range g.Tools {
		names = append(names, tool["name"].(string))
	}
	if strings.Join(names, " ") != "ask_name echo fail picture sign_in sum" || g.ProtocolVersion != "2026-07-28" || g.Snapshot != 1 {
		t.Errorf("tools %v, revision %q", names, g.ProtocolVersion)
	}
	for _, want := range []string{`"readOnlyHint": true`, `"outputSchema"`, `"uriTemplate": "fixture://items/{id}"`, `"capabilities": [`} {
		if !strings.Contains(string(first), want) {
			t.Errorf("the snapshot lacks %s:\n%s", want, first)
		}
	}
	// The same server, over another transport, matches; -update again
	// changes nothing.
	for _, target := range [][]string{cmd, {url}} {
		r = sakeRun(t, "", nil, append(append([]string{"snapshot"}, target...), file)...)
		if r.code != exitOK || !strings.Contains(r.stdout, "matches the server") {
			t.Errorf("%v: %+v", target, r)
		}
	}
	r = sakeRun(t, "", nil, "snapshot", "-update", url, file)
	if again, _ := os.ReadFile(file); r.code != exitOK || !strings.Contains(r.stdout, "is up to date") || string(again) != string(first) {
		t.Errorf("-update again: %+v", r)
	}
	// A snapshot taken in the handshake era is compared in that era.
	legacy := filepath.Join(dir, "legacy.json")
	if r := sakeRun(t, "", nil, "snapshot", "-update", "-era", "legacy", url, legacy); r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	if r := sakeRun(t, "", nil, "snapshot", url, legacy); r.code != exitOK {
		t.Errorf("legacy snapshot: %+v", r)
	}
}

func TestSnapshotDiffers(t *testing.T) {
	t.Parallel()
	url := serveFixtureHTTP(t)
	file := filepath.Join(t.TempDir(), "surface.json")
	if r := sakeRun(t, "", nil, "snapshot", "-update", url, file); r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(file)
	edited := strings.NewReplacer(
		`"description": "Says the text back."`, `"description": "Echoes."`,
		`"name": "picture"`, `"name": "photo"`,
		`"fixture://readme"`, `"fixture://readme.md"`,
	).Replace(string(b))
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sakeRun(t, "", nil, "snapshot", url, file)
	if r.code != exitFail || !strings.Contains(r.stderr, "differs from "+file) || !strings.Contains(r.stderr, "-update") {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"- tool photo (removed)\n",
		"+ tool picture (added)\n",
		"~ tool echo changed:\n",
		"    -   \"description\": \"Echoes.\",\n    +   \"description\": \"Says the text back.\",\n",
		"- resource fixture://readme.md (removed)\n",
		"+ resource fixture://readme (added)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the diff lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "tool sum") {
		t.Errorf("the diff shows a tool that did not change:\n%s", r.stdout)
	}
	// Nothing was written.
	if after, _ := os.ReadFile(file); string(after) != edited {
		t.Error("the comparison changed the file")
	}
}

func TestSnapshotRefuses(t *testing.T) {
	t.Parallel()
	url := serveFixtureHTTP(t)
	dir := t.TempDir()
	notSnapshot := filepath.Join(dir, "other.json")
	if err := os.WriteFile(notSnapshot, []byte(`{"tools":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"snapshot":1,`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"snapshot"}, exitUsage, "name the server and the golden file"},
		{[]string{"snapshot", "-update", url}, exitUsage, "name the server and the golden file"},
		{[]string{"snapshot", url, filepath.Join(dir, "missing.json")}, exitFail, "does not exist: write it with sake snapshot -update"},
		{[]string{"snapshot", url, notSnapshot}, exitFail, "is not a surface snapshot"},
		{[]string{"snapshot", url, broken}, exitFail, "is not a surface snapshot"},
		{[]string{"snapshot", "-update", "sake-no-such-server", filepath.Join(dir, "x.json")}, exitFail, "cannot start the server"},
	} {
		r := sakeRun(t, "", nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
	assertNoFile(t, filepath.Join(dir, "missing.json"))
	assertNoFile(t, filepath.Join(dir, "x.json"))
}

func TestSnapshotEverythingIsDeterministic(t *testing.T) {
	t.Parallel()
	bin := buildExample(t, "everything")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, f := range []string{a, b} {
		if r := sakeRun(t, "", nil, "snapshot", "-update", bin, f); r.code != exitOK {
			t.Fatalf("%+v", r)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if len(x) == 0 || string(x) != string(y) {
		t.Error("two snapshots of the same server differ")
	}
}
