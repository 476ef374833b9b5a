package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// fakeBinary writes an executable file to stand for a server.
func fakeBinary(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "bin", "notes")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInstallConfigPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		client, goos string
		vars         map[string]string
		want         string
	}{
		{"claude-desktop", "darwin", map[string]string{"HOME": "/Users/ana"}, "/Users/ana/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", "linux", map[string]string{"HOME": "/home/ana"}, "/home/ana/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop", "linux", map[string]string{"HOME": "/home/ana", "XDG_CONFIG_HOME": "/cfg"}, "/cfg/Claude/claude_desktop_config.json"},
		{"claude-desktop", "windows", map[string]string{"APPDATA": "/AppData/Roaming"}, "/AppData/Roaming/Claude/claude_desktop_config.json"},
		{"claude-code", "darwin", map[string]string{"HOME": "/Users/ana"}, "/Users/ana/.claude.json"},
		{"claude-code", "linux", map[string]string{"HOME": "/home/ana"}, "/home/ana/.claude.json"},
		{"claude-code", "windows", map[string]string{"USERPROFILE": "/Users/ana"}, "/Users/ana/.claude.json"},
		{"cursor", "darwin", map[string]string{"HOME": "/Users/ana"}, "/Users/ana/.cursor/mcp.json"},
		{"cursor", "linux", map[string]string{"HOME": "/home/ana"}, "/home/ana/.cursor/mcp.json"},
		{"vscode", "darwin", map[string]string{"HOME": "/Users/ana"}, "/Users/ana/Library/Application Support/Code/User/mcp.json"},
		{"vscode", "linux", map[string]string{"HOME": "/home/ana"}, "/home/ana/.config/Code/User/mcp.json"},
		{"vscode", "windows", map[string]string{"APPDATA": "/AppData/Roaming"}, "/AppData/Roaming/Code/User/mcp.json"},
	} {
		e := &env{goos: tc.goos, getenv: func(k string) string { return tc.vars[k] }}
		for _, mc := range mcpClients {
			if mc.name != tc.client {
				continue
			}
			got, err := mc.path(e)
			if err != nil || filepath.ToSlash(got) != tc.want {
				t.Errorf("%s on %s: %q, %v; want %q", tc.client, tc.goos, got, err, tc.want)
			}
		}
	}
	// No home: an error that says what to set.
	for _, mc := range mcpClients {
		if _, err := mc.path(&env{goos: "linux", getenv: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "set HOME") {
			t.Errorf("%s without HOME: %v", mc.name, err)
		}
	}
}

const existingDesktop = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ana"]},
    "weather": {"command": "/opt/weather", "env": {"KEY": "k&<>"}}
  },
  "zoom": 1.25
}
`

func TestInstallDryRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := fakeBinary(t, dir)
	vars := map[string]string{"HOME": dir}
	cfg := filepath.Join(dir, ".config", "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(existingDesktop), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sakeRun(t, "", withGOOS(vars, "linux"), "install", "claude-desktop", "-dry-run", bin, "-dir", "/tmp/notes")
	if r.code != exitOK || !strings.Contains(r.stderr, "would write "+cfg) {
		t.Fatalf("%+v", r)
	}
	var got struct {
		GlobalShortcut string                     `json:"globalShortcut"`
		Zoom           float64                    `json:"zoom"`
		MCPServers     map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("the dry run printed invalid JSON: %v\n%s", err, r.stdout)
	}
	if got.GlobalShortcut != "Ctrl+Space" || got.Zoom != 1.25 || len(got.MCPServers) != 3 {
		t.Errorf("the other settings and servers are not all there:\n%s", r.stdout)
	}
	assertJSON(t, got.MCPServers["filesystem"], `{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/home/ana"]}`)
	assertJSON(t, got.MCPServers["weather"], `{"command":"/opt/weather","env":{"KEY":"k&<>"}}`)
	assertJSON(t, got.MCPServers["notes"], `{"command":"`+bin+`","args":["-dir","/tmp/notes"]}`)
	// Nothing changed on disk.
	assertFile(t, cfg, existingDesktop)
	assertNoFile(t, cfg+".bak")
}

func withGOOS(vars map[string]string, goos string) map[string]string {
	out := map[string]string{"GOOS": goos}
	for k, v := range vars {
		out[k] = v
	}
	return out
}

func assertJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if string(x) != string(y) {
		t.Errorf("got %s, want %s", x, y)
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
	}
}

func assertNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v)", path, err)
	}
}

func TestInstallWrites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		client, path, key, entry string
	}{
		{"claude-desktop", ".config/Claude/claude_desktop_config.json", "mcpServers", `{"command":"BIN","args":["-v"]}`},
		{"claude-code", ".claude.json", "mcpServers", `{"type":"stdio","command":"BIN","args":["-v"]}`},
		{"cursor", ".cursor/mcp.json", "mcpServers", `{"command":"BIN","args":["-v"]}`},
		{"vscode", ".config/Code/User/mcp.json", "servers", `{"type":"stdio","command":"BIN","args":["-v"]}`},
	} {
		t.Run(tc.client, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin := fakeBinary(t, dir)
			vars := withGOOS(map[string]string{"HOME": dir}, "linux")
			cfg := filepath.Join(dir, tc.path)
			// A missing file is created, with its directories; no backup.
			r := sakeRun(t, "", vars, "install", tc.client, bin, "-v")
			if r.code != exitOK || !strings.Contains(r.stdout, `added the server "notes" in `+cfg) {
				t.Fatalf("%+v", r)
			}
			assertNoFile(t, cfg+".bak")
			if st, err := os.Stat(cfg); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("new file: %v %v", st, err)
			}
			top := readTop(t, cfg)
			servers := readServers(t, top[tc.key])
			assertJSON(t, servers["notes"], strings.ReplaceAll(tc.entry, "BIN", bin))

			// Another server and other settings; the new file keeps them.
			old := `{"theme":"dark","` + tc.key + `":{"other":{"command":"/bin/other"},"notes":` + string(servers["notes"]) + `},"projects":{"/a":{"x":[1,2]}}}`
			if err := os.WriteFile(cfg, []byte(old), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(cfg, 0o640); err != nil {
				t.Fatal(err)
			}
			// The same name again is refused, untouched.
			r = sakeRun(t, "", vars, "install", tc.client, bin)
			if r.code != exitFail || !strings.Contains(r.stderr, `already has a server named "notes"`) || !strings.Contains(r.stderr, "-force") {
				t.Errorf("same name: %+v", r)
			}
			assertFile(t, cfg, old)
			assertNoFile(t, cfg+".bak")

			r = sakeRun(t, "", vars, "install", tc.client, "-name", "notes-2", "-env", "A=1", "-env", "B=x=y", bin)
			if r.code != exitOK || !strings.Contains(r.stdout, cfg+".bak") {
				t.Fatalf("%+v", r)
			}
			assertFile(t, cfg+".bak", old)
			if st, err := os.Stat(cfg); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("the file's mode changed: %v %v", st, err)
			}
			top = readTop(t, cfg)
			assertJSON(t, top["theme"], `"dark"`)
			assertJSON(t, top["projects"], `{"/a":{"x":[1,2]}}`)
			servers = readServers(t, top[tc.key])
			assertJSON(t, servers["other"], `{"command":"/bin/other"}`)
			want2 := strings.Replace(strings.ReplaceAll(tc.entry, "BIN", bin), `"args":["-v"]`, `"args":[],"env":{"A":"1","B":"x=y"}`, 1)
			assertJSON(t, servers["notes-2"], want2)
			// The order of the file is kept: the new server comes last.
			b, _ := os.ReadFile(cfg)
			if i, j, k := strings.Index(string(b), `"theme"`), strings.Index(string(b), `"other"`), strings.Index(string(b), `"notes-2"`); !(i < j && j < k) {
				t.Errorf("order lost:\n%s", b)
			}

			// -force replaces, and the earlier backup stays.
			r = sakeRun(t, "", vars, "install", tc.client, "-force", "-name", "other", bin)
			if r.code != exitOK || !strings.Contains(r.stdout, `replaced the server "other"`) || !strings.Contains(r.stdout, cfg+".bak.1") {
				t.Fatalf("-force: %+v", r)
			}
			assertFile(t, cfg+".bak", old)
			servers = readServers(t, readTop(t, cfg)[tc.key])
			if len(servers) != 3 || !strings.Contains(string(servers["other"]), bin) {
				t.Errorf("after -force: %v", servers)
			}
		})
	}
}

func readTop(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", path, err, b)
	}
	return m
}

func readServers(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("servers %s: %v", raw, err)
	}
	return m
}

func TestInstallRefusesInvalidConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ client, bad string }{
		// Comments and trailing commas: JSONC is VS Code's, not Cursor's.
		{"cursor", "{\n  // my servers\n  \"mcpServers\": {}\n}\n"},
		{"cursor", `{"mcpServers": {"a": {"command": "x"},}}`},
		{"vscode", `[1, 2]`},
		{"vscode", `{"servers": {}} {}`},
		{"vscode", `{"servers": ["not", "an", "object"]}`},
		{"vscode", "{\n  // an array\n  \"servers\": [1,],\n}\n"},
		{"vscode", "{\n  // unclosed\n  \"servers\": {\n"},
		{"vscode", "// a comment and nothing else\n[1,]\n"},
	} {
		bad := tc.bad
		dir := t.TempDir()
		bin := fakeBinary(t, dir)
		cfg := filepath.Join(dir, ".config", "Code", "User", "mcp.json")
		if tc.client == "cursor" {
			cfg = filepath.Join(dir, ".cursor", "mcp.json")
		}
		if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, dry := range []bool{false, true} {
			args := []string{"install", tc.client, bin}
			if dry {
				args = []string{"install", tc.client, "-dry-run", bin}
			}
			r := sakeRun(t, "", withGOOS(map[string]string{"HOME": dir}, "linux"), args...)
			if r.code != exitFail || !strings.Contains(r.stderr, "nothing was changed") || r.stdout != "" {
				t.Errorf("%q (dry run %v): %+v", bad, dry, r)
			}
			assertFile(t, cfg, bad)
			assertNoFile(t, cfg+".bak")
		}
	}
}

func TestInstallBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := fakeBinary(t, dir)
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := withGOOS(map[string]string{"HOME": dir}, "linux")
	// A name without a slash is looked up on PATH.
	r := sakeRun(t, "", vars, "install", "cursor", "-dry-run", "sh")
	if r.code != exitOK || !strings.Contains(r.stdout, `"sh": {`) || !strings.Contains(r.stdout, `"command": "/`) {
		t.Errorf("sh: %+v", r)
	}
	// A relative path becomes absolute.
	rel, err := filepath.Rel(mustGetwd(t), bin)
	if err != nil {
		t.Fatal(err)
	}
	r = sakeRun(t, "", vars, "install", "cursor", "-dry-run", "-config", filepath.Join(dir, "x.json"), rel)
	if r.code != exitOK || !strings.Contains(r.stdout, `"command": "`+bin+`"`) || !strings.Contains(r.stderr, filepath.Join(dir, "x.json")) {
		t.Errorf("relative: %+v", r)
	}
	for _, tc := range []struct {
		bin, want string
	}{
		{"sake-no-such-binary", `cannot find "sake-no-such-binary" on PATH`},
		{filepath.Join(dir, "missing"), "build it first"},
		{dir, "is a directory"},
		{notExec, "is not executable"},
	} {
		r := sakeRun(t, "", vars, "install", "cursor", tc.bin)
		if r.code != exitFail || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: %+v; want %q", tc.bin, r, tc.want)
		}
	}
	assertNoFile(t, filepath.Join(dir, ".cursor"))
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestInstallUsage(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"HOME": t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install"}, "name the client first"},
		{[]string{"install", "-dry-run", "cursor", "x"}, "name the client first"},
		{[]string{"install", "zed", "x"}, `unknown client "zed": want one of claude-desktop, claude-code, cursor, vscode`},
		{[]string{"install", "cursor"}, "name the server's binary"},
		{[]string{"install", "cursor", "-dry-run"}, "name the server's binary"},
		{[]string{"install", "cursor", "-env", "NOEQUALS", "sh"}, "want NAME=value"},
		{[]string{"install", "cursor", "-name", "a b", "sh"}, "without spaces"},
	} {
		r := sakeRun(t, "", vars, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %q", tc.args, r, tc.want)
		}
	}
}

func TestInstallURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vars := withGOOS(map[string]string{"HOME": dir}, "linux")
	url := "http://127.0.0.1:8080/mcp"
	for client, want := range map[string]string{
		"claude-code": `{"type":"http","url":"` + url + `"}`,
		"cursor":      `{"url":"` + url + `"}`,
		"vscode":      `{"type":"http","url":"` + url + `"}`,
	} {
		r := sakeRun(t, "", vars, "install", client, "-name", "dev", url)
		if r.code != exitOK || !strings.Contains(r.stdout, "to connect to "+url) {
			t.Errorf("%s: %+v", client, r)
			continue
		}
		var path string
		for _, mc := range mcpClients {
			if mc.name == client {
				path, _ = mc.path(&env{goos: "linux", getenv: func(k string) string { return vars[k] }})
				key := mc.key
				assertJSON(t, readServers(t, readTop(t, path)[key])["dev"], want)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"install", "claude-desktop", "-name", "dev", url}, exitFail, "Connectors"},
		{[]string{"install", "cursor", url}, exitUsage, "name the server with -name"},
		{[]string{"install", "cursor", "-name", "x", url, "extra"}, exitUsage, "a URL takes no arguments"},
		{[]string{"install", "cursor", "-name", "x", "-env", "A=1", url}, exitUsage, "no -env"},
	} {
		r := sakeRun(t, "", vars, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
	assertNoFile(t, filepath.Join(dir, ".config", "Claude"))
}

// VS Code's mcp.json is JSONC: its comments and trailing commas are
// accepted and the comments kept; a server of the same name is refused
// without -force and replaced with it.
func TestInstallVSCodeKeepsComments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := fakeBinary(t, dir)
	cfg := filepath.Join(dir, ".config", "Code", "User", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	const old = `{
  // Servers of my own.
  "servers": {
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}, // the work one
  },
  /* inputs come later */
  "inputs": [],
}
`
	if err := os.WriteFile(cfg, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := withGOOS(map[string]string{"HOME": dir}, "linux")
	r := sakeRun(t, "", vars, "install", "vscode", bin, "-read-only")
	if r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(cfg)
	got := string(b)
	for _, want := range []string{"// Servers of my own.", "// the work one", "/* inputs come later */", `"github"`, `"inputs"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the file lost %q:\n%s", want, got)
		}
	}
	std, err := hujson.Standardize(b)
	if err != nil {
		t.Fatalf("the file written is not JSONC: %v\n%s", err, got)
	}
	var parsed struct {
		Servers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(std, &parsed); err != nil {
		t.Fatal(err)
	}
	if n := parsed.Servers["notes"]; n.Command != bin || n.Type != "stdio" || len(n.Args) != 1 || parsed.Servers["github"].Type != "http" {
		t.Fatalf("servers = %+v", parsed.Servers)
	}
	assertFile(t, cfg+".bak", old)
	// Again: refused without -force (nothing changed), replaced with it.
	r = sakeRun(t, "", vars, "install", "vscode", bin)
	if r.code != exitFail || !strings.Contains(r.stderr, "already has a server named \"notes\"") {
		t.Fatalf("again without -force: %+v", r)
	}
	assertFile(t, cfg, got)
	if r := sakeRun(t, "", vars, "install", "vscode", "-force", bin); r.code != exitOK || !strings.Contains(r.stdout, "replaced") {
		t.Fatalf("-force: %+v", r)
	}
	b, _ = os.ReadFile(cfg)
	if !strings.Contains(string(b), "// the work one") || strings.Contains(string(b), "-read-only") {
		t.Fatalf("after -force:\n%s", b)
	}
}
