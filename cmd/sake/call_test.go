package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCallQuickstartGreet(t *testing.T) {
	t.Parallel()
	bin := buildExample(t, "quickstart")
	for _, era := range []string{"", "modern", "legacy"} {
		r := sakeRun(t, "", nil, "call", "-era", era, bin, "greet", `{"name":"Rui"}`)
		if r.code != exitOK || r.stdout != "Hello, Rui!\n" {
			t.Errorf("era %q: %+v", era, r)
		}
	}
	r := sakeRun(t, "", nil, "call", bin, "greet", `{"name":"Rui","language":"pt"}`)
	if r.code != exitOK || r.stdout != "Olá, Rui!\n" {
		t.Errorf("pt: %+v", r)
	}
}

// targets are the fixture as a command and over HTTP.
func targets(t *testing.T) map[string][]string {
	return map[string][]string{"command": fixtureCommand(t), "http": {serveFixtureHTTP(t)}}
}

func TestCallPrints(t *testing.T) {
	t.Parallel()
	for name, target := range targets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, era := range []string{"modern", "legacy"} {
				call := func(stdin string, args ...string) result {
					a := append(append([]string{"call", "-era", era}, target...), args...)
					return sakeRun(t, stdin, nil, a...)
				}
				if r := call("", "echo", `{"text":"hi","case":"upper"}`); r.code != exitOK || r.stdout != "HI\n" {
					t.Errorf("%s echo: %+v", era, r)
				}
				// Structured content is printed once, indented.
				if r := call("", "sum", `{"a":1,"b":2.5}`); r.code != exitOK || r.stdout != "{\n  \"total\": 3.5\n}\n" {
					t.Errorf("%s sum: %+v", era, r)
				}
				if r := call("", "picture"); r.code != exitOK || r.stdout != "a red dot:\n[image image/png, 4 bytes]\n[resource link fixture://readme]\n" {
					t.Errorf("%s picture: %+v", era, r)
				}
				var res struct {
					Content           []map[string]any `json:"content"`
					StructuredContent map[string]any   `json:"structuredContent"`
				}
				a := append(append([]string{"call", "-json", "-era", era}, target...), "sum", `{"a":1,"b":2}`)
				r := sakeRun(t, "", nil, a...)
				if err := json.Unmarshal([]byte(r.stdout), &res); r.code != exitOK || err != nil || res.StructuredContent["total"] != 3.0 || len(res.Content) != 1 {
					t.Errorf("%s -json: %+v (%v)", era, r, err)
				}
			}
		})
	}
}

func TestCallFailures(t *testing.T) {
	t.Parallel()
	for name, target := range targets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			call := func(args ...string) result {
				return sakeRun(t, "", nil, append(append([]string{"call"}, target...), args...)...)
			}
			// A tool error: its message on stderr, nothing on stdout, exit 1.
			r := call("fail")
			if r.code != exitFail || r.stdout != "" || !strings.Contains(r.stderr, "the tool fail failed:\nthe disk is full: free some space and try again") {
				t.Errorf("fail: %+v", r)
			}
			// Invalid arguments are the tool's error too.
			if r := call("echo", `{}`); r.code != exitFail || !strings.Contains(r.stderr, "text") {
				t.Errorf("echo without text: %+v", r)
			}
			// An unknown tool names the close ones.
			if r := call("ecko", `{"text":"x"}`); r.code != exitFail || !strings.Contains(r.stderr, `the server has no tool "ecko"; did you mean echo?`) {
				t.Errorf("ecko: %+v", r)
			}
			if r := call("SUM"); r.code != exitFail || !strings.Contains(r.stderr, "did you mean sum?") {
				t.Errorf("SUM: %+v", r)
			}
			if r := call("zzzzzzzz"); r.code != exitFail || !strings.Contains(r.stderr, `no tool "zzzzzzzz"; it has ask_name, echo, fail, picture, sign_in, sum`) {
				t.Errorf("zzzzzzzz: %+v", r)
			}
		})
	}
}

func TestCallUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call"}, "name the server and the tool"},
		{[]string{"call", "http://127.0.0.1:1/mcp"}, "name the server and the tool"},
		{[]string{"call", "http://127.0.0.1:1/mcp", `{"a":1}`}, "name the tool before its arguments"},
		{[]string{"call", "srv", "tool", `{"a":`}, "the arguments are not a JSON object"},
		{[]string{"call", "srv", "tool", `{}x`}, "the arguments are not a JSON object"},
		{[]string{"call", "srv", "{}", `{}`}, "name the tool before its arguments"},
		{[]string{"call", "-era", "new", "srv", "tool"}, `-era "new"`},
	} {
		r := sakeRun(t, "", nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: %+v; want %q", tc.args, r, tc.want)
		}
	}
}

func TestSplitCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pos              []string
		target, tool, js string
	}{
		{[]string{"bin/q", "greet", `{"name":"Rui"}`}, "bin/q", "greet", `{"name":"Rui"}`},
		{[]string{"bin/q", "greet"}, "bin/q", "greet", ""},
		{[]string{"go", "run", "./x", "-v", "greet", ` {"a":1} `}, "go run ./x -v", "greet", `{"a":1}`},
		{[]string{"http://h/mcp", "t"}, "http://h/mcp", "t", ""},
	} {
		target, tool, js, err := splitCall(tc.pos)
		if err != nil || strings.Join(target, " ") != tc.target || tool != tc.tool || string(js) != tc.js {
			t.Errorf("%q: %q %q %q %v", tc.pos, target, tool, js, err)
		}
	}
}

func TestCloseNames(t *testing.T) {
	t.Parallel()
	names := []string{"greet", "convert_temperature", "current_time", "get_weather", "set_weather"}
	for _, tc := range []struct{ name, want string }{
		{"gret", "greet"},
		{"Greet", "greet"},
		{"temperature", "convert_temperature"},
		{"get_wether", "get_weather set_weather"},
		{"time", "current_time"},
		{"xyz", ""},
	} {
		if got := strings.Join(closeNames(tc.name, names), " "); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCallElicitationURL(t *testing.T) {
	t.Parallel()
	for name, target := range targets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, era := range []string{"modern", "legacy"} {
				for stdin, want := range map[string]string{"\n": "sign-in: accept\n", "d\n": "sign-in: decline\n", "": "sign-in: cancel\n"} {
					r := sakeRun(t, stdin, nil, append(append([]string{"call", "-era", era}, target...), "sign_in")...)
					if r.code != exitOK || r.stdout != want || !strings.Contains(r.stderr, "The server asks: Sign in to continue\nOpen this page: https://example.com/sign-in\n") {
						t.Errorf("%s, input %q: %+v; want %q", era, stdin, r, want)
					}
				}
			}
		})
	}
}

func TestCallElicitation(t *testing.T) {
	t.Parallel()
	for name, target := range targets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, era := range []string{"modern", "legacy"} {
				for _, tc := range []struct{ stdin, want, prompt string }{
					// Answers by value, by number, and a default.
					{"a\nRui\n42\ny\n\n", "Hello, Rui (42, admin true, lower)!\n", "The server asks: Who are you?\n[a]nswer, [d]ecline or [c]ancel? (a): name (string, required) — Your name: "},
					{"\nAna\n\nn\n1\n", "Hello, Ana (0, admin false, upper)!\n", "    1) upper  2) lower (default lower)"},
					// Answers that do not fit are asked again.
					{"answer\n\nRui\nforty\n42\nmaybe\nno\n9\nLOWER\n", "Hello, Rui (42, admin false, lower)!\n", "  an answer is required\n"},
					{"d\n", "no answer: decline\n", "[a]nswer, [d]ecline"},
					{"cancel\n", "no answer: cancel\n", "[a]nswer, [d]ecline"},
					// The end of the input cancels.
					{"", "no answer: cancel\n", "the input ended"},
					{"a\nRui\n", "no answer: cancel\n", "the input ended"},
				} {
					r := sakeRun(t, tc.stdin, nil, append(append([]string{"call", "-era", era}, target...), "ask_name")...)
					if r.code != exitOK || r.stdout != tc.want || !strings.Contains(r.stderr, tc.prompt) {
						t.Errorf("%s, input %q: %+v; want %q and a prompt with %q", era, tc.stdin, r, tc.want, tc.prompt)
					}
				}
			}
		})
	}
}
