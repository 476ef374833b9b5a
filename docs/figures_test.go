package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
)

// seconds writes a duration as the guides do: "10 s", "500 ms".
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int(d.Seconds()))
}

// TestGuidesStateTheDefaults keeps the figures the guides give for
// defaults equal to the code's.
func TestGuidesStateTheDefaults(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, c := range []struct{ file, says string }{
		{"docs/composing.md", "pings each connected remote every " + seconds(gateway.DefaultHealthCheck)},
		{"docs/composing.md", "does not answer within those " + seconds(gateway.DefaultHealthCheck)},
		{"docs/composing.md", "backoff, " + seconds(gateway.DefaultBackoffMin) + " doubling to " + seconds(gateway.DefaultBackoffMax)},
	} {
		text, err := os.ReadFile(filepath.Join(root, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(text)), " "), c.says) {
			t.Errorf("%s does not say %q", c.file, c.says)
		}
	}
}
