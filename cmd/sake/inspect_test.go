package main

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/sakemcp/sake-go/internal/surface"
)

// everythingTools reads the names of examples/everything's tools from its
// source: a declared Name, or the method's name in snake case.
func everythingTools(t *testing.T) []string {
	t.Helper()
	decl := regexp.MustCompile(`d\.Tool\("(\w+)"\)(?:\.Name\("(\w+)"\))?`)
	var names []string
	for _, f := range []string{"fixture.go", "fixture_tasks.go"} {
		b, err := os.ReadFile("../../examples/everything/" + f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			if m[2] != "" {
				names = append(names, m[2])
			} else {
				names = append(names, snake(m[1]))
			}
		}
	}
	if len(names) < 30 {
		t.Fatalf("found only %d tools in examples/everything: %v", len(names), names)
	}
	sort.Strings(names)
	return names
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 && !unicode.IsUpper(rune(s[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// decodeSurface parses inspect -json.
func decodeSurface(t *testing.T, out string) surface.Surface {
	t.Helper()
	var s surface.Surface
	d := json.NewDecoder(strings.NewReader(out))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		t.Fatalf("inspect -json printed what does not parse: %v\n%s", err, out)
	}
	return s
}

func TestInspectEverythingJSON(t *testing.T) {
	t.Parallel()
	want := everythingTools(t)
	bin := buildExample(t, "everything")
	url := serveEverythingHTTP(t)
	for _, tc := range []struct {
		name, era, wantEra string
		target             []string
	}{
		{"command", "", "modern", []string{bin}},
		{"command legacy", "legacy", "legacy", []string{bin}},
		{"http", "", "modern", []string{url}},
		{"http legacy", "2025-11-25", "legacy", []string{url}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"inspect", "-json", "-era", tc.era}, tc.target...)
			r := sakeRun(t, "", nil, args...)
			if r.code != exitOK {
				t.Fatalf("%+v", r)
			}
			s := decodeSurface(t, r.stdout)
			if s.Era != tc.wantEra || s.Server.Name != "sake-everything" {
				t.Errorf("era %q, server %+v", s.Era, s.Server)
			}
			var got []string
			for _, tool := range s.Tools {
				got = append(got, tool.Name)
				var schema map[string]any
				if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema["type"] != "object" {
					t.Errorf("%s: input schema %s (%v)", tool.Name, tool.InputSchema, err)
				}
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("tools:\n got %v\nwant %v", got, want)
			}
			if len(s.Resources) == 0 || len(s.ResourceTemplates) != 1 || len(s.Prompts) != 5 || len(s.Skills) != 2 {
				t.Errorf("resources %d, templates %d, prompts %d, skills %d", len(s.Resources), len(s.ResourceTemplates), len(s.Prompts), len(s.Skills))
			}
			if !contains(s.Extensions, "io.modelcontextprotocol/skills") {
				t.Errorf("extensions %v", s.Extensions)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestInspectHuman(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		target []string
	}{
		{"command", fixtureCommand(t)},
		{"http", []string{serveFixtureHTTP(t)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, era := range []string{"modern", "legacy"} {
				r := sakeRun(t, "", nil, append([]string{"inspect", "-era", era}, tc.target...)...)
				if r.code != exitOK {
					t.Fatalf("%+v", r)
				}
				for _, want := range []string{
					"fixture 0.1.0, protocol ", "(" + era + " era)",
					"Capabilities: tools (listChanged)",
					"Tools (6):",
					"  echo — Says the text back.",
					"    hints: read-only",
					"      text: string, required — What to say back",
					"  sum — Adds two numbers.", "    hints: idempotent",
					"    output:\n      total: number, required",
					"  fail — Always fails.\n    input: none\n",
					"case: string, one of [\"upper\",\"lower\"], default \"lower\"",
					"Resources (1):\n  fixture://readme  readme (text/markdown) — The readme.",
					"Resource templates (1):\n  fixture://items/{id}  item — One item.",
					"Prompts (1):\n  review(code, style?) — Reviews some code.",
				} {
					if !strings.Contains(r.stdout, want) {
						t.Errorf("%s: the output lacks %q:\n%s", era, want, r.stdout)
					}
				}
			}
			r := sakeRun(t, "", nil, append([]string{"inspect", "-schemas"}, tc.target...)...)
			if r.code != exitOK || !strings.Contains(r.stdout, "input schema:") || !strings.Contains(r.stdout, `"additionalProperties": false`) {
				t.Errorf("-schemas: %+v", r)
			}
		})
	}
}

func TestInspectRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no server", []string{"inspect"}, exitUsage, "name the server"},
		{"bad era", []string{"inspect", "-era", "2099-01-01", "x"}, exitUsage, `-era "2099-01-01": want modern, legacy`},
		{"bad header", []string{"inspect", "-header", "nocolon", "http://127.0.0.1:1/mcp"}, exitUsage, "want Name: value"},
		{"header on a command", []string{"inspect", "-header", "A: b", "sake-no-such-server"}, exitUsage, "-header is for HTTP servers"},
		{"URL with arguments", []string{"inspect", "http://127.0.0.1:1/mcp", "extra"}, exitUsage, "a URL takes no arguments"},
		{"missing command", []string{"inspect", "sake-no-such-server"}, exitFail, `cannot start the server "sake-no-such-server"`},
		{"refused connection", []string{"inspect", "-timeout", "5s", "http://127.0.0.1:1/mcp"}, exitFail, "cannot connect"},
		{"silent server", []string{"inspect", "-timeout", "1s", "sh", "-c", "cat >/dev/null"}, exitFail, "the server did not answer within -timeout 1s"},
		{"not a server", []string{"inspect", "-timeout", "10s", "sh", "-c", "echo the server cannot start: no config >&2; exit 3"}, exitFail, "the server cannot start: no config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := sakeRun(t, "", nil, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Errorf("%v: code %d, stderr %q, stdout %q; want code %d and %q", tc.args, r.code, r.stderr, r.stdout, tc.code, tc.want)
			}
		})
	}
}

func TestInspectVerbose(t *testing.T) {
	t.Parallel()
	r := sakeRun(t, "", nil, append([]string{"inspect", "-v", "-era", "legacy"}, fixtureCommand(t)...)...)
	if r.code != exitOK || !strings.Contains(r.stderr, `-> {"jsonrpc":"2.0","id":`) || !strings.Contains(r.stderr, `"method":"initialize"`) || !strings.Contains(r.stderr, `<- {"jsonrpc":"2.0"`) {
		t.Errorf("%+v", r)
	}
	// Without -v, nothing but the surface.
	r = sakeRun(t, "", nil, append([]string{"inspect"}, fixtureCommand(t)...)...)
	if r.code != exitOK || r.stderr != "" {
		t.Errorf("%+v", r)
	}
}
