package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/plug"
)

// serveVersions serves the tool quote in each of versions, over HTTP.
func serveVersions(t *testing.T, versions ...string) string {
	t.Helper()
	srv := sake.MustNew(nil, sake.Name("quotes", "0.1.0"))
	for _, v := range versions {
		def := sake.NewTool("quote", func(*sake.Context) (string, error) { return "quote " + v, nil }).
			Description("Quotes a price.").Version(v)
		if err := srv.AddTool(def); err != nil {
			t.Fatal(err)
		}
	}
	h := plug.New(srv)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return ts.URL
}

func TestSnapshotShowsAVersionBump(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "surface.json")
	if r := sakeRun(t, "", nil, "snapshot", "-update", serveVersions(t, "1.0"), file); r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), fmt.Sprintf("%q: \"1.0\"", sake.MetaComponentVersion)) {
		t.Fatalf("the snapshot does not record the version:\n%s", b)
	}
	if r := sakeRun(t, "", nil, "snapshot", serveVersions(t, "1.0"), file); r.code != exitOK {
		t.Errorf("the same version differs: %+v", r)
	}
	r := sakeRun(t, "", nil, "snapshot", serveVersions(t, "1.0", "2.0"), file)
	if r.code != exitFail {
		t.Fatalf("a version bump passed: %+v", r)
	}
	if want := "~ tool quote version 2.0, was 1.0; versions served 2.0 1.0, were (none)\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("the diff lacks %q:\n%s", want, r.stdout)
	}
}
