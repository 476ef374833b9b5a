package main

import (
	"os/exec"
	"strings"
	"testing"
)

// maxDeps is the most packages outside the standard library that the
// quickstart (and the README's ten-line server) may link, so that a clone
// builds and runs it in seconds: bench/coldbuild.sh measures the build.
const maxDeps = 60

// heavy are modules the quickstart must not link: they are what made it
// slow to build (OpenTelemetry's exporters pull gRPC and protobuf), and
// pgx belongs to the PostgreSQL packages.
var heavy = []string{"go.opentelemetry.io/", "google.golang.org/", "github.com/jackc/pgx"}

func TestQuickstartStaysLight(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, pattern string }{
		{"examples/quickstart", "."},
		// The README's ten-line server imports sake and sake/stdio.
		{"the README's server", "github.com/sakemcp/sake-go/sake/stdio"},
	} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", c.pattern).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", c.pattern, err)
		}
		deps := strings.Fields(string(out))
		t.Logf("%s links %d packages outside the standard library", c.name, len(deps))
		if len(deps) > maxDeps {
			t.Errorf("%s links %d packages outside the standard library, more than %d:\n%s", c.name, len(deps), maxDeps, out)
		}
		for _, d := range deps {
			for _, h := range heavy {
				if strings.HasPrefix(d, h) {
					t.Errorf("%s links %s: keep it in the examples that show it (OpenTelemetry: examples/production)", c.name, d)
				}
			}
		}
	}
}
