package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/internal/surface"
	"github.com/sakemcp/sake-go/sake"
)

const inspectUsage = `usage: sake inspect [flags] CMD [ARGS...] | URL

Inspect connects to a server and prints what it offers: its name and
protocol revision, capabilities and extensions, tools (with their input and
output schemas and annotations), resources, resource templates, prompts and
skills. -json prints the same as one JSON object, for programs.

` + targetUsage + `
Examples:

	sake inspect bin/quickstart
	sake inspect -json -era legacy go run ./examples/everything
	sake inspect http://127.0.0.1:8080/mcp
`

func runInspect(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "inspect", inspectUsage)
	var cf connFlags
	cf.register(fs, 30*time.Second)
	asJSON := fs.Bool("json", false, "print the surface as JSON")
	schemas := fs.Bool("schemas", false, "print the tools' full JSON Schemas instead of a summary of their properties")
	if err := parse(fs, e, args); err != nil {
		return err
	}
	ctx, cancel := cf.withTimeout(ctx)
	defer cancel()
	c, err := cf.connect(ctx, e, fs.Args())
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := surface.Fetch(ctx, c)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	printSurface(safe(e.stdout), s, *schemas)
	return nil
}

// printSurface writes the surface for a person.
func printSurface(w io.Writer, s *surface.Surface, fullSchemas bool) {
	name := s.Server.Name
	if s.Server.Title != "" {
		name = s.Server.Title + " (" + s.Server.Name + ")"
	}
	fmt.Fprintf(w, "%s %s, protocol %s (%s era)\n", name, s.Server.Version, s.ProtocolVersion, s.Era)
	if s.Server.Description != "" {
		fmt.Fprintf(w, "%s\n", s.Server.Description)
	}
	if len(s.SupportedVersions) > 0 {
		fmt.Fprintf(w, "Supported revisions: %s\n", strings.Join(s.SupportedVersions, ", "))
	}
	fmt.Fprintf(w, "Capabilities: %s\n", orNone(capabilitySummary(s.Capabilities)))
	fmt.Fprintf(w, "Extensions: %s\n", orNone(strings.Join(s.Extensions, ", ")))
	if s.Instructions != "" {
		fmt.Fprintf(w, "Instructions: %s\n", oneLine(s.Instructions))
	}

	fmt.Fprintf(w, "\nTools (%d):\n", len(s.Tools))
	for _, t := range s.Tools {
		fmt.Fprintf(w, "  %s%s\n", t.Name, dash(t.Title, t.Description))
		if h := hints(t.Annotations); h != "" {
			fmt.Fprintf(w, "    hints: %s\n", h)
		}
		printSchema(w, "input", t.InputSchema, fullSchemas)
		printSchema(w, "output", t.OutputSchema, fullSchemas)
	}
	fmt.Fprintf(w, "\nResources (%d):\n", len(s.Resources))
	for _, r := range s.Resources {
		fmt.Fprintf(w, "  %s  %s%s%s\n", r.URI, r.Name, paren(r.MIMEType), dash(r.Title, r.Description))
	}
	fmt.Fprintf(w, "\nResource templates (%d):\n", len(s.ResourceTemplates))
	for _, r := range s.ResourceTemplates {
		fmt.Fprintf(w, "  %s  %s%s%s\n", r.URITemplate, r.Name, paren(r.MIMEType), dash(r.Title, r.Description))
	}
	fmt.Fprintf(w, "\nPrompts (%d):\n", len(s.Prompts))
	for _, p := range s.Prompts {
		var args []string
		for _, a := range p.Arguments {
			if a.Required {
				args = append(args, a.Name)
			} else {
				args = append(args, a.Name+"?")
			}
		}
		fmt.Fprintf(w, "  %s(%s)%s\n", p.Name, strings.Join(args, ", "), dash(p.Title, p.Description))
	}
	if len(s.Skills) > 0 {
		fmt.Fprintf(w, "\nSkills (%d):\n", len(s.Skills))
		for _, sk := range s.Skills {
			var fm struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			}
			_ = json.Unmarshal(sk.Frontmatter, &fm)
			fmt.Fprintf(w, "  %s  %s%s (%d files)\n", sk.URI, fm.Name, dash("", fm.Description), len(sk.Resources))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// dash is " — title: description", or what of it there is.
func dash(title, desc string) string {
	desc = oneLine(desc)
	switch {
	case title != "" && desc != "":
		return " — " + title + ": " + desc
	case title != "":
		return " — " + title
	case desc != "":
		return " — " + desc
	}
	return ""
}

// capabilitySummary lists the capabilities in order, each with the
// flags it sets ("resources (subscribe, listChanged)"); extensions are
// listed on their own.
func capabilitySummary(caps json.RawMessage) string {
	o, err := decodeObject(caps)
	if err != nil {
		return ""
	}
	var out []string
	for _, m := range o {
		if m.Key == "extensions" {
			continue
		}
		sub, err := decodeObject(m.Value)
		var flags []string
		if err == nil {
			for _, f := range sub {
				if string(f.Value) == "true" {
					flags = append(flags, f.Key)
				} else if string(f.Value) != "false" {
					flags = append(flags, f.Key)
				}
			}
		}
		if len(flags) > 0 {
			out = append(out, m.Key+" ("+strings.Join(flags, ", ")+")")
		} else {
			out = append(out, m.Key)
		}
	}
	return strings.Join(out, ", ")
}

// hints describes a tool's annotations.
func hints(a *sake.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var out []string
	add := func(p *bool, yes, no string) {
		if p == nil {
			return
		}
		if *p {
			out = append(out, yes)
		} else if no != "" {
			out = append(out, no)
		}
	}
	add(a.ReadOnlyHint, "read-only", "not read-only")
	add(a.DestructiveHint, "destructive", "not destructive")
	add(a.IdempotentHint, "idempotent", "not idempotent")
	add(a.OpenWorldHint, "open world", "closed world")
	return strings.Join(out, ", ")
}

// printSchema writes a schema's properties one a line (or the whole
// schema, indented, with full).
func printSchema(w io.Writer, label string, schema json.RawMessage, full bool) {
	if len(schema) == 0 || string(schema) == "null" {
		return
	}
	if full {
		var b strings.Builder
		_ = indentJSON(&b, schema, "      ")
		fmt.Fprintf(w, "    %s schema:\n      %s\n", label, b.String())
		return
	}
	lines := schemaLines(schema)
	if len(lines) == 0 && isEmptyObject(schema) {
		fmt.Fprintf(w, "    %s: none\n", label)
		return
	}
	if len(lines) == 0 {
		fmt.Fprintf(w, "    %s: %s\n", label, compactJSON(schema))
		return
	}
	fmt.Fprintf(w, "    %s:\n", label)
	for _, l := range lines {
		fmt.Fprintf(w, "      %s\n", l)
	}
}

// schemaLines summarises an object schema's properties: name, type,
// whether required, description, enum and default. It returns nil for a
// schema that is not a plain object.
func schemaLines(schema json.RawMessage) []string {
	var s struct {
		Type       any             `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	props, err := decodeObject(s.Properties)
	if err != nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var out []string
	for _, p := range props {
		var ps struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
			Default     any    `json:"default"`
			Format      string `json:"format"`
			Ref         string `json:"$ref"`
		}
		_ = json.Unmarshal(p.Value, &ps)
		typ := typeName(ps.Type)
		if typ == "" && ps.Ref != "" {
			typ = ps.Ref
		}
		if ps.Format != "" {
			typ += " (" + ps.Format + ")"
		}
		line := p.Key
		if typ != "" {
			line += ": " + typ
		}
		if required[p.Key] {
			line += ", required"
		}
		if len(ps.Enum) > 0 {
			line += ", one of " + compactJSON(mustJSON(ps.Enum))
		}
		if ps.Default != nil {
			line += ", default " + compactJSON(mustJSON(ps.Default))
		}
		if ps.Description != "" {
			line += " — " + oneLine(ps.Description)
		}
		out = append(out, line)
	}
	return out
}

// isEmptyObject reports whether schema is an object schema without
// properties (a tool that takes no arguments).
func isEmptyObject(schema json.RawMessage) bool {
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil || string(s["type"]) != `"object"` {
		return false
	}
	for k := range s {
		switch k {
		case "type", "additionalProperties", "$schema", "properties":
		default:
			return false
		}
	}
	return len(s["properties"]) == 0 || string(s["properties"]) == "{}"
}

func typeName(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, "|")
	}
	return ""
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func compactJSON(b json.RawMessage) string {
	var buf strings.Builder
	if err := compactInto(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}
