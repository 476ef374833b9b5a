package gateway_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/gateway"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// rawEnv makes the test binary a stdio server written by hand, whose
// tools have names no sake server could have.
const rawEnv = "SAKE_GATEWAY_TEST_RAW"

// longName is a 200-character tool name.
var longName = strings.Repeat("a_very_long_tool_name_", 9) + "ends_here_xx"

func init() {
	if os.Getenv(rawEnv) != "" {
		serveRaw()
		os.Exit(0)
	}
}

// serveRaw answers the handshake era on stdin and stdout: tools named
// "report.v2 daily", longName, "plain" and "bad-schema" (whose input
// schema is not an object, so no server can serve it), each answering
// with its own name; or, when rawEnv is "pid", one tool, pid, that
// answers with the process id.
func serveRaw() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	tool := func(name, schema string) map[string]any {
		return map[string]any{"name": name, "description": "tool " + name, "inputSchema": json.RawMessage(schema)}
	}
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "raw", "version": "1"}}
		case "ping":
			result = map[string]any{}
		case "tools/list":
			if os.Getenv(rawEnv) == "pid" {
				result = map[string]any{"tools": []any{tool("pid", `{"type":"object"}`)}}
				break
			}
			result = map[string]any{"tools": []any{tool("report.v2 daily", `{"type":"object"}`), tool(longName, `{"type":"object"}`),
				tool("plain", `{"type":"object"}`), tool("bad-schema", `{"type":"string"}`)}}
		case "tools/call":
			text := "called " + m.Params.Name
			if m.Params.Name == "pid" {
				text = strconv.Itoa(os.Getpid())
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
			continue
		}
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}
}

var clientsAccept = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestNamesEveryClientAccepts: a remote's tools whose names clients
// refuse (a dot and a space; 200 characters) are published under names
// they accept and routed back; a tool no server can serve is left out,
// logged and listed by /readyz, and the rest of its remote is served.
func TestNamesEveryClientAccepts(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, fmt.Sprintf(`{"mcpServers": {
		"raw.tools": {"command": %q, "args": ["-test.run=^$"], "env": {%q: "1"}},
		"merged": {"command": %q, "args": ["-test.run=^$"], "env": {%q: "1"}, "namespace": ""}}}`, exe, rawEnv, exe, rawEnv), gateway.HealthCheck(time.Hour))
	for _, s := range g.Status() {
		if !s.Connected {
			t.Fatalf("%s not connected: %v", s.Key, s.Err)
		}
	}
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		c := saketest.Connect(t, g.Server(), opts...)
		tools, err := c.ListTools()
		if err != nil {
			t.Fatal(err)
		}
		byOrigin := map[string]string{} // "called <remote name>" → published name
		for _, ti := range tools {
			if !clientsAccept.MatchString(ti.Name) {
				t.Errorf("published %q, which clients refuse", ti.Name)
			}
			res, err := c.CallTool(ti.Name, nil)
			if err != nil {
				t.Fatalf("%s: %v", ti.Name, err)
			}
			byOrigin[res.Text()+" via "+ti.Name[:strings.Index(ti.Name+"_", "_")]] = ti.Name
		}
		if len(tools) != 6 {
			t.Errorf("%d tools published, want 3 of each remote: %v", len(tools), byOrigin)
		}
		for _, want := range []string{"called plain", "called report.v2 daily", "called " + longName} {
			found := 0
			for k := range byOrigin {
				if strings.HasPrefix(k, want+" via ") {
					found++
				}
			}
			if found != 2 {
				t.Errorf("%q reached through %d published names, want 2: %v", want, found, byOrigin)
			}
		}
		names := slices.Collect(func(yield func(string) bool) {
			for _, v := range byOrigin {
				if !yield(v) {
					return
				}
			}
		})
		for _, want := range []string{"raw-tools_plain", "plain"} {
			if !slices.Contains(names, want) {
				t.Errorf("%s missing from %v: a name clients accept is kept", want, names)
			}
		}
	})
	b := getHealth(t, g.ReadyHandler(), http.StatusOK)
	for _, s := range b.Servers {
		if len(s.LeftOut) != 1 || !strings.HasPrefix(s.LeftOut[0], "tool bad-schema: ") {
			t.Errorf("%s left out %q, want bad-schema", s.Key, s.LeftOut)
		}
	}
}

func TestPublishedNamesAreDeterministic(t *testing.T) {
	for _, tc := range []struct{ ns, name, want string }{
		{"github", "search", "search"},
		{"github", "report.v2 daily", "report_v2_daily_" + gateway.ShortHashForTest("report.v2 daily")},
		{"", strings.Repeat("x", 64), strings.Repeat("x", 64)},
		{"", strings.Repeat("x", 65), strings.Repeat("x", 57) + "_" + gateway.ShortHashForTest(strings.Repeat("x", 65))},
		{"ns", "ünïcode", "__n__code_" + gateway.ShortHashForTest("ünïcode")},
	} {
		got := gateway.PublishedNameForTest(tc.ns, tc.name)
		if got != tc.want {
			t.Errorf("publishedName(%q, %q) = %q, want %q", tc.ns, tc.name, got, tc.want)
		}
		full := got
		if tc.ns != "" {
			full = tc.ns + "_" + got
		}
		if !clientsAccept.MatchString(full) {
			t.Errorf("%q is refused by clients", full)
		}
	}
	for ns, want := range map[string]string{"github": "github", "github.com": "github-com", "my_server": "my-server", "1password": "n1password",
		strings.Repeat("n", 40): strings.Repeat("n", 25) + "-" + gateway.ShortHashForTest(strings.Repeat("n", 40))} {
		if got := gateway.MountedNamespaceForTest(ns); got != want {
			t.Errorf("mountedNamespace(%q) = %q, want %q", ns, got, want)
		}
	}
}
