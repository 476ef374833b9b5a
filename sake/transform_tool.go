package sake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/internal/validate"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// toolShape is how a transformed tool's calls reach the tool it reshapes:
// the caller's arguments are validated against the reshaped schema, then
// renamed back, completed with defaults and hidden values, and passed to
// the source tool (through Wrap when there is one).
type toolShape struct {
	src        *tool
	fromCaller map[string]string // the caller's name of a renamed argument -> the tool's
	refused    map[string]bool   // names a caller may not send: hidden arguments, old names of renamed ones
	defaults   []argValue        // by the tool's names
	hidden     []argValue
	wrap       func(c *Context, args map[string]any, call func(args map[string]any) (*ToolResult, error)) (*ToolResult, error)
}

// computesArgs says a call of t gets an argument computed from the
// request (a ValueFunc), so the caller's own arguments do not determine
// what the tool runs with.
func (t *tool) computesArgs() bool {
	for ; t != nil && t.via != nil; t = t.via.src {
		for _, h := range t.via.hidden {
			if h.fn != nil {
				return true
			}
		}
	}
	return false
}

// argValue is a value the transform gives an argument.
type argValue struct {
	name  string // the tool's name of the argument
	value any
	fn    func(c *Context) (any, error)
	json  []byte // value, encoded once
}

// member is one member of a JSON object to set (value nil: to remove).
type member struct {
	key   string
	value []byte
}

// withMembers returns the JSON object obj with members replaced in place,
// removed (nil value) or, when obj has none of that key, appended.
func withMembers(obj []byte, set []member) []byte {
	out := []byte{'{'}
	done := make([]bool, len(set))
	first := true
	add := func(key string, value []byte) {
		out = protocol.AppendKey(out, key, first)
		out = append(out, value...)
		first = false
	}
	_ = jsonscan.Members(obj, func(key, value []byte) error {
		for i, m := range set {
			if m.key == string(key) {
				done[i] = true
				if m.value != nil {
					add(m.key, m.value)
				}
				return nil
			}
		}
		add(string(key), value)
		return nil
	})
	for i, m := range set {
		if !done[i] && m.value != nil {
			add(m.key, m.value)
		}
	}
	return append(out, '}')
}

func jsonString(s string) []byte { return protocol.AppendString(nil, s) }

// describedMembers are the members a transform sets on any list entry.
func describedMembers(t *Transform, nameKey bool) []member {
	var set []member
	if t.Name != "" && nameKey {
		set = append(set, member{"name", jsonString(t.Name)})
	}
	if t.Title != "" {
		set = append(set, member{"title", jsonString(t.Title)})
	}
	if t.Description != "" {
		set = append(set, member{"description", jsonString(t.Description)})
	}
	return set
}

// shapeTool builds the tool clients see from src and its transform.
func shapeTool(src *tool, tr *Transform) (*tool, error) {
	t := *src
	if tr.Name != "" {
		t.name = tr.Name
	}
	t.tags = append(slices.Clip(src.tags), tr.Tags...)
	set := describedMembers(tr, true)
	if len(tr.Args) > 0 || tr.Wrap != nil {
		sh, raw, err := shapeArgs(src, tr)
		if err != nil {
			return nil, err
		}
		if t.input, err = compileSchema(raw); err != nil {
			return nil, fmt.Errorf("the reshaped input schema: %w", err)
		}
		if t.headers, err = mcpHeaders(t.input); err != nil {
			return nil, err
		}
		t.fill, t.via = nil, sh
		set = append(set, member{"inputSchema", raw})
	}
	if tr.OutputSchema != nil {
		t.output, t.structured = tr.OutputSchema, true
		set = append(set, member{"outputSchema", tr.OutputSchema})
	}
	if a := tr.Annotations; a != nil {
		t.readOnly = a.ReadOnlyHint != nil && *a.ReadOnlyHint
		var v []byte
		if !noAnnotations(*a) {
			var err error
			if v, err = json.Marshal(a); err != nil {
				return nil, err
			}
		}
		set = append(set, member{"annotations", v})
	}
	t.listJSON = withMembers(src.listJSON, set)
	t.legacyJSON = t.listJSON
	if string(src.legacyJSON) != string(src.listJSON) {
		t.legacyJSON = withMembers(src.legacyJSON, set)
	}
	t.byRevision = shapeRevisions(t.listJSON, true)
	return &t, nil
}

// shapeArgs checks a transform's arguments against the tool and returns
// how calls are mapped and the reshaped input schema.
func shapeArgs(src *tool, tr *Transform) (*toolShape, []byte, error) {
	sh := &toolShape{src: src, wrap: tr.Wrap, fromCaller: map[string]string{}, refused: map[string]bool{}}
	var problems []string
	finalNames := map[string]string{} // name the caller uses -> the tool's
	for _, name := range src.input.order {
		if a, ok := tr.Args[name]; ok && a.hidden() {
			continue
		}
		to := name
		if a, ok := tr.Args[name]; ok && a.Name != "" {
			to = a.Name
		}
		if prev, ok := finalNames[to]; ok {
			problems = append(problems, fmt.Sprintf("arguments %s and %s would both be called %s", prev, name, to))
		}
		finalNames[to] = name
	}
	for _, name := range sortedKeys(tr.Args) {
		a := tr.Args[name]
		if _, ok := src.input.props[name]; !ok {
			problems = append(problems, fmt.Sprintf("the tool has no argument %s (it has %s)", name, orNone(src.input.order)))
			continue
		}
		switch {
		case a.hidden():
			if a.Value == nil && a.ValueFunc == nil && src.input.required[name] {
				problems = append(problems, fmt.Sprintf("argument %s is required: give it a Value or ValueFunc to hide it", name))
			}
			v := argValue{name: name, value: a.Value, fn: a.ValueFunc}
			if a.Value != nil {
				b, err := protocol.MarshalNoEscape(a.Value)
				if err == nil {
					err = fits(src, name, b)
				} else {
					err = fmt.Errorf("cannot be encoded: %v", err)
				}
				if err != nil {
					problems = append(problems, fmt.Sprintf("argument %s: its Value %v", name, err))
				}
				v.json = b
			}
			sh.hidden = append(sh.hidden, v)
			sh.refused[name] = true
		case a.Name != "" && a.Name != name:
			sh.fromCaller[a.Name] = name
			sh.refused[name] = true
		}
		if a.Default != nil {
			b, err := protocol.MarshalNoEscape(a.Default)
			if err == nil {
				err = fits(src, name, b)
			} else {
				err = fmt.Errorf("cannot be encoded: %v", err)
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("argument %s: its Default %v", name, err))
			}
			sh.defaults = append(sh.defaults, argValue{name: name, value: a.Default, json: b})
		}
	}
	for to := range finalNames {
		delete(sh.refused, to) // an old name another argument now has
	}
	if len(problems) > 0 {
		return nil, nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	raw, err := reshapeSchema(src.input.raw, tr.Args)
	return sh, raw, err
}

// fits checks the JSON value a transform gives the tool's argument name
// against the tool's input schema, as a call that sends it would be
// checked: a value the schema refuses would make every call fail, naming
// an argument the model cannot see or fix.
func fits(src *tool, name string, value []byte) error {
	schema, err := validate.Compile(withMembers(src.input.raw, []member{{"required", nil}}))
	if err != nil {
		return fmt.Errorf("cannot be checked: the tool's input schema: %v", err)
	}
	v, err := protocol.DecodeAny(value)
	if err != nil {
		return fmt.Errorf("cannot be encoded: %v", err)
	}
	if err := schema.Validate(map[string]any{name: v}); err != nil {
		return fmt.Errorf("%s does not fit the argument's schema: %v", value, err)
	}
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// reshapeSchema rewrites the root of an input schema: properties renamed,
// re-described, given defaults or removed, and required to match.
func reshapeSchema(raw []byte, args map[string]ArgTransform) ([]byte, error) {
	var set []member
	err := jsonscan.Members(raw, func(key, value []byte) error {
		switch string(key) {
		case "properties":
			props := []byte{'{'}
			first := true
			err := jsonscan.Members(value, func(k, v []byte) error {
				name := string(k)
				a := args[name]
				if a.hidden() {
					return nil
				}
				if a.Name != "" {
					name = a.Name
				}
				var ps []member
				if a.Description != "" {
					ps = append(ps, member{"description", jsonString(a.Description)})
				}
				if a.Default != nil {
					d, err := protocol.MarshalNoEscape(a.Default)
					if err != nil {
						return err
					}
					ps = append(ps, member{"default", d})
				}
				if len(ps) > 0 {
					if jsonscan.Kind(v) != jsonscan.Object {
						v = []byte("{}") // a boolean schema true: anything
					}
					v = withMembers(v, ps)
				}
				props = protocol.AppendKey(props, name, first)
				props = append(props, v...)
				first = false
				return nil
			})
			set = append(set, member{"properties", append(props, '}')})
			return err
		case "required":
			var req []string
			if err := json.Unmarshal(value, &req); err != nil {
				return fmt.Errorf("required: %w", err)
			}
			out := req[:0]
			for _, name := range req {
				a := args[name]
				switch {
				case a.hidden(), a.Default != nil:
					continue // the transform supplies it
				case a.Name != "":
					name = a.Name
				}
				out = append(out, name)
			}
			var v []byte // none left: the member goes
			if len(out) > 0 {
				v, _ = json.Marshal(out)
			}
			set = append(set, member{"required", v})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return withMembers(raw, set), nil
}

// invoke answers a call of the transformed tool t.
func (sh *toolShape) invoke(t *tool, c *Context, args json.RawMessage, checked bool) (*ToolResult, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var into map[string]any
	if sh.wrap == nil {
		// Only read here: the generic map is cleared and reused.
		into = argMaps.Get().(map[string]any)
		defer putArgMap(into)
	}
	generic, err := decodeArgs(args, t.input.keys, checked, into)
	if err != nil {
		return nil, InvalidParams("Invalid params: arguments are not valid JSON: %v", err)
	}
	m, _ := generic.(map[string]any)
	var refused []string
	for k := range m {
		if sh.refuses(t, k) {
			refused = append(refused, k+": is not allowed (unknown property)")
		}
	}
	if len(refused) > 0 {
		slices.Sort(refused)
		return ErrorResult("Invalid arguments for tool %s: %s", t.name, strings.Join(refused, "; ")), nil
	}
	if err := t.input.validator.Validate(generic); err != nil {
		return ErrorResult("Invalid arguments for tool %s: %v", t.name, err), nil
	}
	if m == nil {
		return ErrorResult("Invalid arguments for tool %s: arguments: must be an object", t.name), nil
	}
	if sh.wrap != nil {
		return sh.wrapped(t, c, m)
	}
	// Without a wrapper the arguments are rewritten as text: numbers keep
	// their digits.
	out := make([]byte, 0, len(args)+64)
	out = append(out, '{')
	first := true
	_ = jsonscan.Members(args, func(key, value []byte) error {
		name := string(key)
		if to, ok := sh.fromCaller[name]; ok {
			name = to
		}
		out = protocol.AppendKey(out, name, first)
		out = append(out, value...)
		first = false
		return nil
	})
	for _, d := range sh.defaults {
		if _, sent := m[sh.callerName(d.name)]; !sent {
			out = protocol.AppendKey(out, d.name, first)
			out = append(out, d.json...)
			first = false
		}
	}
	for _, h := range sh.hidden {
		if h.value == nil && h.fn == nil {
			continue // hidden without a value: the tool gets none
		}
		v := h.json
		if h.fn != nil {
			x, res, err := sh.computed(t, c, h)
			if res != nil || err != nil {
				return res, err
			}
			if v, err = protocol.MarshalNoEscape(x); err != nil {
				return nil, fmt.Errorf("tool %s: the value of argument %s cannot be encoded: %w", t.name, h.name, err)
			}
		}
		out = protocol.AppendKey(out, h.name, first)
		out = append(out, v...)
		first = false
	}
	return sh.src.invoke(c, append(out, '}'), true)
}

// refuses reports whether a caller may not send the argument named k: a
// hidden argument, or the old name of a renamed one, in any case (the
// tool's decoding matches names whatever their case, as encoding/json
// does), unless the reshaped schema itself names k.
func (sh *toolShape) refuses(t *tool, k string) bool {
	if sh.refused[k] {
		return true
	}
	if len(sh.refused) == 0 {
		return false
	}
	if _, listed := t.input.props[k]; listed {
		return false
	}
	for name := range sh.refused {
		if strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// callerName is the name a caller sends the tool's argument under.
func (sh *toolShape) callerName(name string) string {
	for from, to := range sh.fromCaller {
		if to == name {
			return from
		}
	}
	return name
}

// computed runs a hidden argument's ValueFunc: its value, or the answer to
// give instead.
func (sh *toolShape) computed(t *tool, c *Context, h argValue) (v any, res *ToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.srv.reportPanic(c, "the value of argument "+h.name+" of tool "+t.name, r)
			v, res, err = nil, ErrorResult("Tool %s failed with an internal error.", t.name), nil
		}
	}()
	v, err = h.fn(c)
	if err != nil {
		res, err = toolFailure(err)
	}
	return v, res, err
}

// wrapped calls the transform's Wrap with the arguments as the tool will
// receive them.
func (sh *toolShape) wrapped(t *tool, c *Context, m map[string]any) (res *ToolResult, err error) {
	args := make(map[string]any, len(m)+len(sh.defaults)+len(sh.hidden))
	for k, v := range m {
		if to, ok := sh.fromCaller[k]; ok {
			k = to
		}
		args[k] = v
	}
	for _, d := range sh.defaults {
		if _, ok := args[d.name]; !ok {
			args[d.name] = d.value
		}
	}
	for _, h := range sh.hidden {
		switch {
		case h.fn != nil:
			v, res, err := sh.computed(t, c, h)
			if res != nil || err != nil {
				return res, err
			}
			args[h.name] = v
		case h.value != nil:
			args[h.name] = h.value
		}
	}
	call := func(a map[string]any) (*ToolResult, error) {
		b, err := protocol.MarshalNoEscape(a)
		if err != nil {
			return nil, fmt.Errorf("tool %s: its arguments cannot be encoded: %w", t.name, err)
		}
		res, err := sh.src.invoke(c, b, true)
		if err == nil && res != nil {
			// The wrapper may look at the result: a proxy's, left
			// encoded, is decoded for it.
			err = res.Decode()
		}
		return res, err
	}
	defer func() {
		if r := recover(); r != nil {
			c.srv.reportPanic(c, "the wrapper of tool "+t.name, r)
			res, err = ErrorResult("Tool %s failed with an internal error.", t.name), nil
		}
	}()
	res, err = sh.wrap(c, args, call)
	if err != nil {
		return toolFailure(err)
	}
	if res == nil {
		res = &ToolResult{Content: []Content{}}
	}
	return res, nil
}

// shapePrompt builds the prompt clients see from src and its transform.
func shapePrompt(src *prompt, tr *Transform) (*prompt, error) {
	p := *src
	if tr.Name != "" {
		p.name = tr.Name
	}
	if tr.Description != "" {
		p.description = tr.Description
	}
	p.tags = append(slices.Clip(src.tags), tr.Tags...)
	p.listJSON = withMembers(src.listJSON, describedMembers(tr, true))
	p.byRevision = shapeRevisions(p.listJSON, false)
	return &p, nil
}

// shapeResource builds the resource (or template) clients see from src
// and its transform: the URI stays, the name may change.
func shapeResource(src *resource, tr *Transform) *resource {
	r := *src
	if tr.Name != "" {
		r.name = tr.Name
	}
	r.tags = append(slices.Clip(src.tags), tr.Tags...)
	r.listJSON = withMembers(src.listJSON, describedMembers(tr, true))
	r.byRevision = shapeRevisions(r.listJSON, false)
	return &r
}
