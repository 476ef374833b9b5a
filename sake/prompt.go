package sake

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

var (
	promptMessageType  = reflect.TypeFor[PromptMessage]()
	promptMessagesType = reflect.TypeFor[[]PromptMessage]()
	promptResultPtr    = reflect.TypeFor[*PromptResult]()
)

// prompt is a compiled prompt.
type prompt struct {
	require     Requirement
	name        string
	description string
	call        callable
	args        []promptArg
	listJSON    []byte
	byRevision  revisionJSON
	completions map[string]*completer
	tags        []string
	gate        *childGate // the list policy of the server it was mounted from, if any
	version     string     // its version, "" when it has none
	others      []*prompt  // on the entry a registry holds: the other versions of its name, highest first
}

type promptArg struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	enum        []string
}

func acceptPromptArg(t reflect.Type) error {
	if t == mapStringType || t.Kind() == reflect.Struct {
		return nil
	}
	return fmt.Errorf("takes %s: a prompt's argument must be a struct of string fields or map[string]string", t)
}

func checkPromptResult(r reflect.Type) error {
	switch {
	case r == nil:
		return fmt.Errorf("returns only an error: a prompt returns its messages")
	case r == stringType, r == promptMessageType, r == promptMessagesType, r == promptResultPtr,
		r == contentsType, r.Implements(contentIface):
		return nil
	}
	return fmt.Errorf("returns %s: a prompt returns string, sake.Content, []sake.Content, sake.PromptMessage, []sake.PromptMessage or *sake.PromptResult", r)
}

func compilePrompt(def *PromptDef, fn reflect.Value, method bool, resolve completionResolver) (*prompt, error) {
	c, err := analyse(fn, method, acceptPromptArg)
	if err != nil {
		return nil, err
	}
	if err := checkPromptResult(c.result); err != nil {
		return nil, err
	}
	if err := checkVersion(def.version); err != nil {
		return nil, err
	}
	p := &prompt{name: def.name, description: def.description, call: c, require: def.require, tags: slices.Clone(def.tags),
		version: def.version}
	if c.argType != nil && c.argType.Kind() == reflect.Struct {
		ts, err := schemaFor(c.argType)
		if err != nil {
			return nil, err
		}
		for _, name := range ts.order {
			prop := ts.props[name]
			if k, _ := prop.Type.(string); k != "string" {
				return nil, fmt.Errorf("%s field %q must be a string: prompt arguments are strings", c.argType, name)
			}
			a := promptArg{Name: name, Title: prop.Title, Description: prop.Description, Required: ts.required[name]}
			for _, e := range prop.Enum {
				if s, ok := e.(string); ok {
					a.enum = append(a.enum, s)
				}
			}
			p.args = append(p.args, a)
		}
	}
	if c.argType == mapStringType {
		for _, a := range def.arguments {
			p.args = append(p.args, promptArg{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
	} else if len(def.arguments) > 0 {
		return nil, fmt.Errorf("Arguments needs a prompt function that takes map[string]string; %v declares its own", c.argType)
	}
	b := []byte(`{"name":`)
	b = protocol.AppendString(b, def.name)
	b = protocol.AppendOptString(b, "title", def.title)
	b = protocol.AppendOptString(b, "description", def.description)
	if len(p.args) > 0 {
		j, err := json.Marshal(p.args)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"arguments":`...)
		b = append(b, j...)
	}
	if len(def.icons) > 0 {
		j, err := json.Marshal(def.icons)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"icons":`...)
		b = append(b, j...)
	}
	if b, err = protocol.AppendMeta(b, def.meta, nil); err != nil {
		return nil, err
	}
	p.listJSON = append(b, '}')
	p.byRevision = shapeRevisions(p.listJSON, false)
	// Arguments with an enum complete from it unless Complete says otherwise.
	p.completions = map[string]*completer{}
	for _, a := range p.args {
		if len(a.enum) > 0 {
			p.completions[a.Name] = &completer{enum: a.enum}
		}
	}
	for a, h := range def.completions {
		if !p.hasArg(a) {
			return nil, fmt.Errorf("Complete names argument %q, which the prompt does not have", a)
		}
		k, err := resolve(h)
		if err != nil {
			return nil, fmt.Errorf("completion of %s: %w", a, err)
		}
		p.completions[a] = k
	}
	return p, nil
}

// get checks the arguments, calls the prompt and normalises its messages.
func (p *prompt) get(c *Context, raw json.RawMessage) (*PromptResult, error) {
	var args map[string]string
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, InvalidParams("prompt %s: arguments must be an object of strings", p.name)
		}
	}
	if p.call.argType != mapStringType {
		var missing, unknown []string
		for _, a := range p.args {
			if _, ok := args[a.Name]; a.Required && !ok {
				missing = append(missing, a.Name)
			}
		}
		for k := range args {
			if !p.hasArg(k) {
				unknown = append(unknown, k)
			}
		}
		sort.Strings(unknown)
		if len(missing) > 0 {
			return nil, InvalidParams("prompt %s: missing required argument(s): %s", p.name, strings.Join(missing, ", "))
		}
		if len(unknown) > 0 {
			return nil, InvalidParams("prompt %s: unknown argument(s): %s", p.name, strings.Join(unknown, ", "))
		}
	}
	var arg reflect.Value
	if p.call.argType != nil {
		arg = reflect.New(p.call.argType)
		if p.call.argType == mapStringType {
			if args == nil {
				args = map[string]string{}
			}
			arg.Elem().Set(reflect.ValueOf(args))
		} else if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, arg.Interface()); err != nil {
				return nil, InvalidParams("prompt %s: %s", p.name, describeDecodeError(err))
			}
		}
	}
	out, err, panicked := c.srv.safeCall(c, &p.call, arg, "prompt ", p.name)
	if panicked {
		return nil, NewError(CodeInternalError, "prompt %s failed with an internal error", p.name)
	}
	if err != nil {
		if errors.Is(err, ErrInputRequired) {
			return nil, err
		}
		if e, ok := errors.AsType[*Error](err); ok {
			return nil, e
		}
		return nil, NewError(CodeInternalError, "prompt %s failed: %v", p.name, err)
	}
	res := &PromptResult{Description: p.description}
	switch x := out.Interface().(type) {
	case string:
		res.Messages = []PromptMessage{UserMessage(Text(x))}
	case PromptMessage:
		res.Messages = []PromptMessage{x}
	case []PromptMessage:
		res.Messages = x
	case *PromptResult:
		if x == nil {
			return nil, NewError(CodeInternalError, "prompt %s returned a nil result", p.name)
		}
		res = x
	case []Content:
		for _, c := range x {
			res.Messages = append(res.Messages, UserMessage(c))
		}
	case Content:
		res.Messages = []PromptMessage{UserMessage(x)}
	}
	if res.Messages == nil {
		res.Messages = []PromptMessage{}
	}
	return res, nil
}

func (p *prompt) hasArg(name string) bool {
	for _, a := range p.args {
		if a.Name == name {
			return true
		}
	}
	return false
}
