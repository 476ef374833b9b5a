package gateway_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// TestStdioChildGetsAMinimalEnvironment: a stdio child does not read the
// gateway's environment (the secrets of other entries), only a base, what
// its entry inherits by name, and its own env.
func TestStdioChildGetsAMinimalEnvironment(t *testing.T) {
	t.Setenv("SAKE_GW_OTHER_SECRET", "hunter2")
	t.Setenv("SAKE_GW_SHARED", "shared-value")
	t.Setenv("SAKE_GW_OVERRIDDEN", "the gateway's")
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"qs": {"command": %q, "args": ["-test.run=^$"], "inheritEnv": ["SAKE_GW_SHARED"],
			"env": {%q: "1", "SAKE_GW_OWN": "own", "SAKE_GW_OVERRIDDEN": "the entry's"}},
		"all": {"command": %q, "args": ["-test.run=^$"], "inheritEnv": ["*"], "env": {%q: "1"}}
	}}`, os.Args[0], stdioEnv, os.Args[0], stdioEnv))
	c := saketest.Connect(t, g.Server())
	getenv := func(tool, name string) string {
		t.Helper()
		res, err := c.CallTool(tool, map[string]any{"name": name})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	for name, want := range map[string]string{
		"SAKE_GW_OTHER_SECRET": "",
		"SAKE_GW_SHARED":       "shared-value",
		"SAKE_GW_OWN":          "own",
		"SAKE_GW_OVERRIDDEN":   "the entry's",
		"PATH":                 os.Getenv("PATH"),
	} {
		if got := getenv("qs_getenv", name); got != want {
			t.Errorf("qs child: %s = %q, want %q", name, got, want)
		}
	}
	if got := getenv("all_getenv", "SAKE_GW_OTHER_SECRET"); got != "hunter2" {
		t.Errorf(`a child with inheritEnv ["*"]: SAKE_GW_OTHER_SECRET = %q, want the gateway's`, got)
	}
}

func TestInheritEnvIsForCommands(t *testing.T) {
	t.Parallel()
	_, err := gateway.ParseConfig([]byte(`{"mcpServers": {"web": {"url": "http://127.0.0.1:1/mcp", "inheritEnv": ["HOME"]}}}`))
	if err == nil {
		t.Fatal("inheritEnv on a url entry was accepted")
	}
}

func TestChildEnvBase(t *testing.T) {
	t.Parallel()
	environ := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "XDG_CACHE_HOME=/c", "AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=y", "NODE_OPTIONS=--z", "=C:=weird", "noequals"}
	got := gateway.ChildEnvForTest(gateway.Entry{Command: "x", InheritEnv: []string{"NODE_OPTIONS"}, Env: map[string]string{"HOME": "/own"}}, environ)
	want := []string{"HOME=/own", "LC_ALL=C", "NODE_OPTIONS=--z", "PATH=/bin", "XDG_CACHE_HOME=/c"}
	if !slices.Equal(got, want) {
		t.Errorf("child environment = %v, want %v", got, want)
	}
}
