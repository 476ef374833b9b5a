package sake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sakemcp/sake-go/sake/internal/validate"
)

// Transform reshapes one component of the server, named by exactly one of
// Tool, Prompt or Resource, as the server publishes it: its own, one added
// later, or one a mount or proxy put there. Server.Transform installs it;
// a component of that name that appears later is reshaped as it appears.
//
// A tool can be renamed and re-described, its annotations and output
// schema replaced, its arguments renamed, re-described, given a default or
// hidden, and its calls wrapped. Prompts and resources can be renamed and
// re-described. The reshaped schema and list entry are computed once per
// component, not per call. Tags adds tags to the component, for
// Server.Enable, Server.Disable and a list policy.
type Transform struct {
	// Tool, Prompt and Resource name the component: a tool or prompt by
	// the name it has before this transform, a resource by its URI (or a
	// resource template by its template text).
	Tool, Prompt, Resource string

	// Name renames the component: a tool or prompt is then called by this
	// name only (the old one is unknown to clients); a resource keeps its
	// URI and changes the name it is listed with. Empty keeps the name.
	Name string
	// Title and Description replace the component's, when not empty.
	Title, Description string
	// Tags are added to the component's tags.
	Tags []string

	// Annotations, when not nil, replaces a tool's annotations.
	Annotations *ToolAnnotations
	// OutputSchema, when not nil, replaces a tool's outputSchema: give it
	// when Wrap changes the shape of the structured result.
	OutputSchema json.RawMessage
	// Args reshapes a tool's arguments, keyed by their names before the
	// transform. The input schema and the validation of calls follow.
	Args map[string]ArgTransform
	// Wrap, when not nil, runs in place of the tool: args are the
	// arguments as the tool will receive them (names before the
	// transform, hidden values set, numbers as float64), and call runs the
	// tool with the arguments given. Wrap may change the arguments and the
	// result; its error is answered as a tool's error is. A panic in it is
	// an error result, logged.
	Wrap func(c *Context, args map[string]any, call func(args map[string]any) (*ToolResult, error)) (*ToolResult, error)
}

// ArgTransform reshapes one argument of a tool (see Transform.Args).
type ArgTransform struct {
	// Name renames the argument: callers send it under this name, and
	// the tool receives it under its own.
	Name string
	// Description replaces the argument's description.
	Description string
	// Default, when not nil, is shown as the argument's default and sent
	// to the tool when the caller leaves the argument out; the argument is
	// then optional. It must fit the argument's schema.
	Default any

	// Hide removes the argument from the input schema, so the model never
	// sees it. A value sent for it, under its name in any case (the tool's
	// decoding matches names whatever their case), is refused as an
	// unknown property (never silently replaced). The tool receives Value, or what
	// ValueFunc computes from the request (the caller's subject, a tenant
	// from the identity), or, when neither is set, nothing. Setting Value
	// or ValueFunc hides the argument too.
	Hide bool
	// Value is the fixed value a hidden argument gets. It must fit the
	// argument's schema (Transform and AddTool refuse one that does not).
	Value any
	// ValueFunc computes a hidden argument's value for each call; its
	// error is answered as a tool's error is (a *Error or an authorization
	// error as such, any other as an isError result).
	ValueFunc func(c *Context) (any, error)
}

func (a ArgTransform) hidden() bool { return a.Hide || a.Value != nil || a.ValueFunc != nil }

// Transform installs transforms, each replacing any earlier one for the
// same component; a Transform that names its component and sets nothing
// else removes the transform. Clients following list changes are told
// when a list changes.
//
// Each transform is checked at once against the component it names when
// the server has it (unknown arguments, a hidden required argument without
// a value, a Value or Default the argument's schema refuses, a new name
// another component has): then, or when a transform is malformed, none is
// installed and the error names each problem. A transform for a name the
// server does not have yet is kept and applies when the component
// appears; a tool added with AddTool, or brought by Mount, that does not
// fit it is refused by AddTool or Mount with the problem, and one a
// mounted or proxied server adds later is left out of the server (never
// published without the transform) and the problem is logged. A component that comes later with
// a name a rename has claimed is shadowed by the renamed one (and logged).
// AddTool, RemoveTool and their siblings go on naming components by their
// own names.
func (s *Server) Transform(ts ...Transform) error {
	var problems []string
	for i := range ts {
		if err := ts[i].check(); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if err := joinProblems(problems); err != nil {
		return err
	}
	before, after, err := s.comps.reshape(s.logger, func(sh *shaping, src *registry) error {
		return sh.install(ts, src)
	})
	if err != nil {
		return err
	}
	s.announceChanges(before, after)
	return nil
}

// target returns the kind and name a transform applies to.
func (t *Transform) target() (kind, name string) {
	switch {
	case t.Tool != "":
		return "tool", t.Tool
	case t.Prompt != "":
		return "prompt", t.Prompt
	}
	return "resource", t.Resource
}

// removes reports whether the transform only names its component.
func (t *Transform) removes() bool {
	return t.Name == "" && t.Title == "" && t.Description == "" && len(t.Tags) == 0 && t.Annotations == nil &&
		t.OutputSchema == nil && len(t.Args) == 0 && t.Wrap == nil
}

// check finds what is wrong with a transform on its own.
func (t *Transform) check() error {
	n := 0
	for _, s := range []string{t.Tool, t.Prompt, t.Resource} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("sake: a Transform names exactly one of Tool, Prompt or Resource (it names %d)", n)
	}
	kind, name := t.target()
	if kind != "tool" && (t.Annotations != nil || t.OutputSchema != nil || len(t.Args) > 0 || t.Wrap != nil) {
		return fmt.Errorf("sake: transform of %s %s: Annotations, OutputSchema, Args and Wrap apply to tools only", kind, name)
	}
	if kind == "tool" && t.Name != "" && !toolNameRE.MatchString(t.Name) {
		return fmt.Errorf("sake: transform of tool %s: the new name %q is not 1 to 128 of A-Z a-z 0-9 _ . -", name, t.Name)
	}
	if t.OutputSchema != nil {
		if _, err := validate.Compile(t.OutputSchema); err != nil {
			return fmt.Errorf("sake: transform of tool %s: output schema: %w", name, err)
		}
	}
	var problems []string
	newNames := map[string]string{}
	for arg, a := range t.Args {
		switch {
		case arg == "":
			problems = append(problems, "an argument with no name")
		case a.Value != nil && a.ValueFunc != nil:
			problems = append(problems, fmt.Sprintf("argument %s: give Value or ValueFunc, not both", arg))
		case a.hidden() && (a.Name != "" || a.Description != "" || a.Default != nil):
			problems = append(problems, fmt.Sprintf("argument %s: a hidden argument has no name, description or default the model could see", arg))
		case a.Name != "":
			if prev, ok := newNames[a.Name]; ok {
				problems = append(problems, fmt.Sprintf("arguments %s and %s are both renamed %s", min(prev, arg), max(prev, arg), a.Name))
			}
			newNames[a.Name] = arg
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("sake: transform of tool %s: %s", name, strings.Join(problems, "; "))
	}
	return nil
}
