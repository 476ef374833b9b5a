package gateway_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/gateway"
)

func TestParseConfig(t *testing.T) {
	t.Setenv("GATEWAY_TEST_TOKEN", "s3cret")
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers":{
		"everything": {"url": "http://127.0.0.1:1/mcp", "namespace": ""},
		"qs": {"command": "quickstart", "args": ["--x", "${GATEWAY_TEST_TOKEN}"], "env": {"K": "${env:GATEWAY_TEST_TOKEN}"}},
		"github": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${GATEWAY_TEST_TOKEN}"}},
		"off": {"command": "nothing", "disabled": true},
		"my_server": {"command": "x", "namespace": "mine"}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 4 {
		t.Fatalf("servers = %v", cfg.Servers)
	}
	if e := cfg.Servers["everything"]; e.NamespaceOf("everything") != "" {
		t.Errorf("everything's namespace = %q", e.NamespaceOf("everything"))
	}
	if e := cfg.Servers["qs"]; e.NamespaceOf("qs") != "qs" || e.Args[1] != "s3cret" || e.Env["K"] != "s3cret" {
		t.Errorf("qs = %+v", e)
	}
	if e := cfg.Servers["github"]; e.Headers["Authorization"] != "Bearer s3cret" {
		t.Errorf("github = %+v", e)
	}
	if cfg.Servers["my_server"].NamespaceOf("my_server") != "mine" {
		t.Errorf("my_server = %+v", cfg.Servers["my_server"])
	}
	// VS Code's form.
	if cfg, err := gateway.ParseConfig([]byte(`{"servers":{"a":{"type":"stdio","command":"a"}}}`)); err != nil || len(cfg.Servers) != 1 {
		t.Errorf("servers form = %v, %v", cfg, err)
	}
}

func TestParseConfigRefuses(t *testing.T) {
	t.Parallel()
	var many strings.Builder
	many.WriteString(`{"mcpServers":{`)
	for i := range gateway.MaxEntries + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `"s%d":{"command":"x"}`, i)
	}
	many.WriteString("}}")
	for _, tc := range []struct{ name, json, want string }{
		{"not JSON", `{"mcpServers":`, "not JSON"},
		{"no servers", `{"other":{}}`, `no "mcpServers"`},
		{"neither command nor url", `{"mcpServers":{"a":{}}}`, `needs "command"`},
		{"both", `{"mcpServers":{"a":{"command":"x","url":"http://h/mcp"}}}`, "both"},
		{"sse", `{"mcpServers":{"a":{"type":"sse","url":"http://h/sse"}}}`, "sse"},
		{"unknown type", `{"mcpServers":{"a":{"type":"ws","url":"ws://h"}}}`, "unknown type"},
		{"url scheme", `{"mcpServers":{"a":{"url":"ftp://h/mcp"}}}`, "not http"},
		{"bad namespace", `{"mcpServers":{"a":{"command":"x","namespace":"a+b"}}}`, "namespace"},
		{"oauth on stdio", `{"mcpServers":{"a":{"command":"x","oauth":{"clientId":"g","clientSecret":"s"}}}}`, `"oauth" is for an HTTP server`},
		{"oauth without a secret", `{"mcpServers":{"a":{"url":"http://h/mcp","oauth":{"clientId":"g"}}}}`, `needs "clientId" and "clientSecret"`},
		{"oauth and a token", `{"mcpServers":{"a":{"url":"http://h/mcp","headers":{"authorization":"Bearer t"},"oauth":{"clientId":"g","clientSecret":"s"}}}}`, "keep one"},
		{"bad version range", `{"mcpServers":{"a":{"command":"x","versions":">=2 <"}}}`, `"versions"`},
		{"too many", many.String(), "more than"},
		{"too big", `{"mcpServers":{"a":{"command":"` + strings.Repeat("x", gateway.MaxConfigBytes) + `"}}}`, "larger"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gateway.ParseConfig([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
