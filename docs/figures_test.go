package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/gateway/pgsignins"
	"github.com/sakemcp/sake-go/sake/gateway/usertokens/pgusertokens"
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
		{"docs/composing.md", fmt.Sprintf("the call waits for the callback (at most %d minutes)", int(gateway.DefaultSignInTimeout.Minutes()))},
		{"docs/composing.md", fmt.Sprintf("At most %d users are connected to one entry at once", gateway.DefaultMaxUserSessions)},
		{"docs/composing.md", fmt.Sprintf("a session unused for %d minutes is closed", int(gateway.DefaultUserSessionIdle.Minutes()))},
		{"docs/composing.md", fmt.Sprintf("At most %d sign-ins are open at once", gateway.DefaultMaxPendingSignIns)},
		{"docs/limits.md", fmt.Sprintf("| %d min | `gateway.SignIns` (`DefaultSignInTimeout`)", int(gateway.DefaultSignInTimeout.Minutes()))},
		{"docs/limits.md", fmt.Sprintf("| %d; %d min | `gateway.UserSessions`", gateway.DefaultMaxUserSessions, int(gateway.DefaultUserSessionIdle.Minutes()))},
		{"docs/serving-and-deploying.md", fmt.Sprintf("A user keeps at most %d tokens", pgusertokens.DefaultMaxPerUser)},
		{"docs/serving-and-deploying.md", fmt.Sprintf("a sealed token at most %d KiB", pgusertokens.DefaultMaxSealedBytes>>10)},
		{"docs/limits.md", fmt.Sprintf("(`pgusertokens`) | %d per user |", pgusertokens.DefaultMaxPerUser)},
		{"docs/limits.md", fmt.Sprintf("| %d KiB; %d bytes; %d KiB |", pgusertokens.DefaultMaxSealedBytes>>10, pgusertokens.MaxUserBytes, pgusertokens.MaxResourceBytes>>10)},
		{"docs/limits.md", fmt.Sprintf("over all replicas; of one user | %d; %d |", pgsignins.DefaultMaxOpen, pgsignins.DefaultMaxPerUser)},
		{"docs/limits.md", fmt.Sprintf("another replica | %d min,", int(gateway.EndedSignInTTL.Minutes()))},
		{"docs/limits.md", fmt.Sprintf("| %d KiB; %d KiB each; %d KiB |", pgsignins.MaxSealedBytes>>10, pgsignins.MaxNameBytes>>10, pgsignins.MaxFailureBytes>>10)},
		{"docs/composing.md", fmt.Sprintf("and at most %d of one user", pgsignins.DefaultMaxPerUser)},
		{"docs/serving-and-deploying.md", fmt.Sprintf("most %d are open over all the replicas, %d of one user", pgsignins.DefaultMaxOpen, pgsignins.DefaultMaxPerUser)},
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
