package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// maxAsks bounds how many times one field is asked again after an answer
// that does not fit.
const maxAsks = 5

// terminal answers the server's questions to the user: the question goes
// to out, the answers come from in, a line each.
type terminal struct {
	mu  sync.Mutex // one question at a time
	in  *lineReader
	out io.Writer
}

// lineReader reads lines; it is shared by every question of a run.
type lineReader struct{ r *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReader(r)} }

// line returns the next line without its end, or io.EOF.
func (l *lineReader) line() (string, error) {
	s, err := l.r.ReadString('\n')
	if err != nil && (s == "" || !errors.Is(err, io.EOF)) {
		return "", err
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// errNoInput ends a question when the input ends: the answer is cancel.
var errNoInput = errors.New("no more input")

func (t *terminal) elicit(ctx context.Context, req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	res, err := t.ask(req)
	if errors.Is(err, errNoInput) {
		fmt.Fprintln(t.out, "(the input ended: the question is cancelled)")
		return client.Cancel(), nil
	}
	return res, err
}

func (t *terminal) ask(req *protocol.ElicitRequest) (*protocol.ElicitResult, error) {
	fmt.Fprintf(t.out, "The server asks: %s\n", req.Message)
	if req.Mode == "url" {
		fmt.Fprintf(t.out, "Open this page: %s\n", req.URL)
	}
	switch c, err := t.choose("[a]nswer, [d]ecline or [c]ancel? (a): ", "a", "d", "c"); {
	case err != nil:
		return nil, err
	case c == "d":
		return client.Decline(), nil
	case c == "c":
		return client.Cancel(), nil
	}
	if req.Mode == "url" {
		return client.Accept(nil), nil
	}
	fields, err := formFields(req.RequestedSchema)
	if err != nil {
		return nil, err
	}
	answers := map[string]any{}
	for _, f := range fields {
		v, ok, err := t.field(f)
		if err != nil {
			return nil, err
		}
		if ok {
			answers[f.name] = v
		}
	}
	return client.Accept(answers), nil
}

// choose asks until the answer is one of the choices ("" is the first).
func (t *terminal) choose(prompt string, choices ...string) (string, error) {
	for range maxAsks {
		fmt.Fprint(t.out, prompt)
		s, err := t.in.line()
		if err != nil {
			return "", errNoInput
		}
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			return choices[0], nil
		}
		for _, c := range choices {
			if s == c || s == longChoice(c) {
				return c, nil
			}
		}
	}
	return "", errNoInput
}

func longChoice(c string) string {
	switch c {
	case "a":
		return "answer"
	case "d":
		return "decline"
	case "c":
		return "cancel"
	}
	return c
}

// formField is one property of a requested schema.
type formField struct {
	name, typ, title, desc string
	required               bool
	def                    any
	enum                   []string // values
	labels                 []string // titles of the values, or the values
	multi                  bool     // an array of enum values
}

// formFields reads the properties of a form's schema, in order.
func formFields(schema json.RawMessage) ([]formField, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the server's form is not a JSON Schema: %w", err)
	}
	if len(s.Properties) == 0 {
		return nil, nil
	}
	props, err := decodeObject(s.Properties)
	if err != nil {
		return nil, fmt.Errorf("the server's form has unreadable properties: %w", err)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var out []formField
	for _, p := range props {
		var ps struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Default     any      `json:"default"`
			Enum        []string `json:"enum"`
			EnumNames   []string `json:"enumNames"`
			OneOf       []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
			Items struct {
				Enum  []string `json:"enum"`
				AnyOf []struct {
					Const string `json:"const"`
					Title string `json:"title"`
				} `json:"anyOf"`
			} `json:"items"`
		}
		_ = json.Unmarshal(p.Value, &ps)
		f := formField{name: p.Key, typ: ps.Type, title: ps.Title, desc: ps.Description, required: required[p.Key], def: ps.Default}
		switch {
		case len(ps.Enum) > 0:
			f.enum = ps.Enum
			f.labels = ps.Enum
			if len(ps.EnumNames) == len(ps.Enum) {
				f.labels = ps.EnumNames
			}
		case len(ps.OneOf) > 0:
			for _, o := range ps.OneOf {
				f.enum = append(f.enum, o.Const)
				f.labels = append(f.labels, firstNonEmpty(o.Title, o.Const))
			}
		case ps.Type == "array" && len(ps.Items.Enum) > 0:
			f.multi, f.enum, f.labels = true, ps.Items.Enum, ps.Items.Enum
		case ps.Type == "array" && len(ps.Items.AnyOf) > 0:
			f.multi = true
			for _, o := range ps.Items.AnyOf {
				f.enum = append(f.enum, o.Const)
				f.labels = append(f.labels, firstNonEmpty(o.Title, o.Const))
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// field asks one field until its answer fits; ok is false for an optional
// field left empty without a default.
func (t *terminal) field(f formField) (v any, ok bool, err error) {
	prompt := f.name
	var notes []string
	if f.typ != "" && len(f.enum) == 0 {
		notes = append(notes, f.typ)
	}
	if f.required {
		notes = append(notes, "required")
	}
	if len(notes) > 0 {
		prompt += " (" + strings.Join(notes, ", ") + ")"
	}
	if d := firstNonEmpty(f.title, f.desc); d != "" && d != f.name {
		prompt += " — " + oneLine(d)
	}
	if len(f.enum) > 0 {
		var opts []string
		for i, l := range f.labels {
			opts = append(opts, fmt.Sprintf("%d) %s", i+1, l))
		}
		prompt += "\n    " + strings.Join(opts, "  ")
		if f.multi {
			prompt += "\n    (numbers or values, separated by commas)"
		}
	}
	if f.typ == "boolean" {
		prompt += " [y/n]"
	}
	if f.def != nil {
		prompt += fmt.Sprintf(" (default %v)", f.def)
	}
	prompt += ": "
	for range maxAsks {
		fmt.Fprint(t.out, prompt)
		s, err := t.in.line()
		if err != nil {
			return nil, false, errNoInput
		}
		s = strings.TrimSpace(s)
		if s == "" {
			if f.def != nil {
				return f.def, true, nil
			}
			if !f.required {
				return nil, false, nil
			}
			fmt.Fprintln(t.out, "  an answer is required")
			continue
		}
		v, err := f.parse(s)
		if err != nil {
			fmt.Fprintf(t.out, "  %v\n", err)
			continue
		}
		return v, true, nil
	}
	return nil, false, errNoInput
}

// parse turns one typed answer into the field's JSON value.
func (f formField) parse(s string) (any, error) {
	if f.multi {
		var out []string
		for _, part := range strings.Split(s, ",") {
			v, err := f.pick(strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	if len(f.enum) > 0 {
		return f.pick(s)
	}
	switch f.typ {
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true", "1":
			return true, nil
		case "n", "no", "false", "0":
			return false, nil
		}
		return nil, errors.New("answer y or n")
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errors.New("answer a whole number")
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errors.New("answer a number")
		}
		return n, nil
	}
	return s, nil
}

// pick is the enum value answered by its number, value or label.
func (f formField) pick(s string) (string, error) {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.enum) {
		return f.enum[n-1], nil
	}
	for i, v := range f.enum {
		if strings.EqualFold(s, v) || strings.EqualFold(s, f.labels[i]) {
			return v, nil
		}
	}
	return "", fmt.Errorf("answer one of 1-%d or a value: %s", len(f.enum), strings.Join(f.enum, ", "))
}
