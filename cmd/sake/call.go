package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
)

const callUsage = `usage: sake call [flags] CMD [ARGS...] | URL  TOOL [JSON]

Call calls the tool TOOL with the arguments JSON (an object; none when
left out) and prints its result: text content as it is, structured content
as indented JSON, other content as a line that says what it is. -json prints
the whole result as the server sent it. A tool that fails prints its
message on standard error and exits with 1.

The last argument is the arguments when it starts with "{"; the one before
it (or the last) is the tool; what comes before is the server.

When the tool asks the user something (elicitation), the question is put on
the terminal: standard error shows it, standard input takes the answers;
the end of the input cancels it. Progress the server reports is shown on
standard error.

` + targetUsage + `
Examples:

	sake call bin/quickstart greet '{"name":"Rui"}'
	sake call http://127.0.0.1:8080/mcp convert_temperature '{"value":100,"from":"celsius","to":"kelvin"}'
`

func runCall(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "call", callUsage)
	var cf connFlags
	cf.register(fs, 0)
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	if err := parse(fs, e, args); err != nil {
		return err
	}
	target, tool, arguments, err := splitCall(fs.Args())
	if err != nil {
		return err
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	ask := &terminal{in: newLineReader(e.stdin), out: safe(e.stderr)}
	c, err := cf.connect(ctx, e, target,
		client.OnElicit(ask.elicit),
		client.OnProgress(func(p client.Progress) { printProgress(safe(e.stderr), p) }))
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.CallTool(ctx, tool, arguments)
	var te *sake.ToolError
	var rpc *sake.Error
	switch {
	case errors.As(err, &te):
		if *asJSON {
			_ = printJSON(e.stdout, te.Result)
		}
		fmt.Fprintf(e.stderr, "sake call: the tool %s failed:\n", safeText(tool))
		printResult(safe(e.stderr), te.Result)
		return errSilentFail
	case errors.As(err, &rpc):
		if unknown := unknownTool(ctx, c, tool); unknown != nil {
			return unknown
		}
		return fmt.Errorf("%s: %w", tool, err)
	case err != nil:
		return fmt.Errorf("%s: %w", tool, err)
	}
	if *asJSON {
		return printJSON(e.stdout, res)
	}
	printResult(safe(e.stdout), res)
	return nil
}

// splitCall splits the positional arguments of call into the server,
// the tool and its arguments.
func splitCall(pos []string) (target []string, tool string, arguments json.RawMessage, err error) {
	if n := len(pos); n >= 3 && strings.HasPrefix(strings.TrimSpace(pos[n-1]), "{") {
		raw := strings.TrimSpace(pos[n-1])
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &obj); err != nil {
			return nil, "", nil, usagef("the arguments are not a JSON object (%v): %s", err, raw)
		}
		arguments = json.RawMessage(raw)
		pos = pos[:n-1]
	}
	if len(pos) < 2 {
		return nil, "", nil, usagef("name the server and the tool: sake call CMD [ARGS...] | URL TOOL [JSON]")
	}
	tool = pos[len(pos)-1]
	if tool == "" || strings.HasPrefix(tool, "{") {
		return nil, "", nil, usagef("name the tool before its arguments: sake call CMD [ARGS...] | URL TOOL [JSON]")
	}
	return pos[:len(pos)-1], tool, arguments, nil
}

// unknownTool returns the error for a call of a tool the server does not
// list, naming the close ones, or nil when the server lists it.
func unknownTool(ctx context.Context, c *client.Client, name string) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return nil
	}
	var names []string
	for _, t := range tools {
		if t.Name == name {
			return nil
		}
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("the server has no tools (asked for %q)", name)
	}
	if close := closeNames(name, names); len(close) > 0 {
		return fmt.Errorf("the server has no tool %q; did you mean %s? (sake inspect lists them all)", name, orList(close))
	}
	sort.Strings(names)
	if len(names) > 12 {
		return fmt.Errorf("the server has no tool %q; it has %s, ... (sake inspect lists them all)", name, strings.Join(names[:12], ", "))
	}
	return fmt.Errorf("the server has no tool %q; it has %s", name, strings.Join(names, ", "))
}

// closeNames returns the names near name: the same but for case,
// containing it or contained in it, or a few edits away; closest first.
func closeNames(name string, names []string) []string {
	type scored struct {
		name string
		d    int
	}
	var out []scored
	lower := strings.ToLower(name)
	for _, n := range names {
		ln := strings.ToLower(n)
		d := editDistance(lower, ln)
		switch {
		case ln == lower:
			d = 0
		case len(lower) >= 3 && (strings.Contains(ln, lower) || strings.Contains(lower, ln)):
			d = min(d, 2)
		}
		if d <= max(2, len(name)/3) {
			out = append(out, scored{n, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d || out[i].d == out[j].d && out[i].name < out[j].name })
	var names2 []string
	for i, s := range out {
		if i == 5 {
			break
		}
		names2 = append(names2, s.name)
	}
	return names2
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// orList is "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printResult writes a tool result for a person: structured content as
// indented JSON (and no text block that only repeats it), text as it is,
// and a line for each other block.
func printResult(w io.Writer, r *sake.ToolResult) {
	var structured json.RawMessage
	switch s := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		structured = s
	default:
		structured, _ = json.Marshal(s)
	}
	if len(structured) > 0 && string(structured) != "null" {
		var b strings.Builder
		if indentJSON(&b, structured, "") == nil {
			fmt.Fprintln(w, b.String())
		} else {
			fmt.Fprintln(w, string(structured))
		}
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sake.TextContent:
			if len(structured) > 0 && sameJSON(structured, c.Text) {
				continue
			}
			fmt.Fprintln(w, c.Text)
		case *sake.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *sake.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *sake.ResourceLink:
			fmt.Fprintf(w, "[resource link %s%s]\n", c.URI, paren(c.MIMEType))
		case *sake.EmbeddedResource:
			res := c.Resource
			if res.Blob != nil {
				fmt.Fprintf(w, "[resource %s%s, %d bytes]\n", res.URI, paren(res.MIMEType), len(res.Blob))
			} else {
				fmt.Fprintf(w, "[resource %s%s]\n%s\n", res.URI, paren(res.MIMEType), res.Text)
			}
		default:
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "[%s %s]\n", c.ContentType(), b)
		}
	}
}

// sameJSON reports whether text is JSON equal to raw.
func sameJSON(raw json.RawMessage, text string) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(text), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func printProgress(w io.Writer, p client.Progress) {
	s := fmt.Sprintf("progress %g", p.Progress)
	if p.Total != nil {
		s += fmt.Sprintf("/%g", *p.Total)
	}
	if p.Message != "" {
		s += ": " + p.Message
	}
	fmt.Fprintln(w, s)
}
