package sake

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/validate"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// tool is a compiled tool: its callable, schemas, validator and the JSON it
// is listed with, all computed once.
type tool struct {
	task       TaskMode
	taskTTL    time.Duration
	taskPoll   time.Duration
	taskByCode bool
	singleUse  bool         // requestStates are redeemable once
	legacyJSON []byte       // listJSON with execution.taskSupport, for 2025-11-25 servers with tasks
	byRevision revisionJSON // listJSON shaped for each revision
	require    Requirement
	name       string
	call       callable
	input      *typeSchema
	fill       *filler // copies validated arguments into argType; nil: encoding/json decodes them
	output     json.RawMessage
	structured bool // the result becomes structuredContent
	headers    []paramHeader
	listJSON   []byte
	view       string // the ui:// resource of its view, if any
	appOnly    bool   // visible to the app only: left out of tools/list for clients without apps
	readOnly   bool   // annotated readOnlyHint: true
	tags       []string
	via        *toolShape  // set on a tool reshaped by a Transform that changes its arguments or wraps it
	gate       *childGate  // the list policy of the server it was mounted from, if any
	forward    forwardFunc // starts a call without waiting for it, when it can (deferred.go)
	version    string      // its version, "" when it has none
	others     []*tool     // on the entry a registry holds: the other versions of its name, highest first
}

// paramHeader is an argument mirrored in an Mcp-Param-{Name} header.
type paramHeader struct {
	header string // canonical lower-case name after "mcp-param-"
	name   string // the name as declared, for messages
	prop   string // the argument's property name
	kind   string // string, integer or boolean
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func acceptToolArg(t reflect.Type) error {
	switch {
	case t == mapAnyType, t == rawMessageType:
		return nil
	case t.Kind() == reflect.Struct:
		return nil
	}
	return fmt.Errorf("takes an argument of type %s: a tool's argument must be a struct, a pointer to one, map[string]any or json.RawMessage", t)
}

// compileTool checks def against fn and prepares the tool.
func compileTool(def *ToolDef, fn reflect.Value, method bool) (*tool, error) {
	c, err := analyse(fn, method, acceptToolArg)
	if err != nil {
		return nil, err
	}
	if !toolNameRE.MatchString(def.name) {
		return nil, fmt.Errorf("tool name %q is not 1 to 128 of A-Z a-z 0-9 _ . -", def.name)
	}
	if err := checkVersion(def.version); err != nil {
		return nil, err
	}
	t := &tool{name: def.name, call: c, require: def.require, task: def.task, taskTTL: def.taskTTL,
		taskPoll: def.taskPoll, taskByCode: def.taskByCode, singleUse: def.singleUse, tags: slices.Clone(def.tags),
		version: def.version, forward: def.forward}
	if err := t.applyUI(def); err != nil {
		return nil, err
	}
	switch {
	case def.inputSchema != nil:
		ts, err := compileSchema(def.inputSchema)
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		if !ts.objectRoot() {
			return nil, fmt.Errorf(`input schema: the root must have "type": "object"`)
		}
		t.input = ts
	case c.argType != nil:
		ts, err := schemaFor(c.argType)
		if err != nil {
			return nil, err
		}
		t.input = ts
	default:
		t.input = noArgsSchema
	}
	if c.argType != nil && c.argType.Kind() == reflect.Struct {
		t.fill = fillerFor(c.argType)
	}
	if t.headers, err = mcpHeaders(t.input); err != nil {
		return nil, err
	}
	if err := t.resultShape(def); err != nil {
		return nil, err
	}
	t.readOnly = def.annotations.ReadOnlyHint != nil && *def.annotations.ReadOnlyHint
	t.listJSON, err = toolListJSON(def, t)
	t.byRevision = shapeRevisions(t.listJSON, true)
	t.legacyJSON = t.listJSON
	if err == nil && t.task != TaskNever && !def.taskUnadvertised {
		support := `"optional"`
		if t.task == TaskRequired {
			support = `"required"`
		}
		t.legacyJSON = append(append(t.listJSON[:len(t.listJSON)-1:len(t.listJSON)-1], `,"execution":{"taskSupport":`+support+`}`...), '}')
	}
	return t, err
}

var noArgsSchema = mustCompileSchema(`{"type":"object","additionalProperties":false}`)

func mustCompileSchema(s string) *typeSchema {
	ts, err := compileSchema([]byte(s))
	if err != nil {
		panic(err)
	}
	return ts
}

// resultShape decides how the result type is turned into a tool result.
func (t *tool) resultShape(def *ToolDef) error {
	r := t.call.result
	if def.outputSchema != nil {
		if _, err := validate.Compile(def.outputSchema); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
		t.output, t.structured = def.outputSchema, true
		return nil
	}
	switch {
	case r == nil, r == stringType, r == contentsType, r == toolResultPtr, r == toolResultType,
		r.Implements(contentIface):
		return nil
	case r == bytesType:
		return fmt.Errorf("returns []byte: return sake.Image, sake.Audio or an embedded resource to say what the bytes are")
	}
	base := r
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() == reflect.Struct || (base.Kind() == reflect.Map && base.Key().Kind() == reflect.String) {
		ts, err := schemaFor(base)
		if err != nil {
			return fmt.Errorf("result: %w", err)
		}
		t.output, t.structured = ts.raw, true
	}
	return nil
}

// mcpHeaders finds the properties annotated with x-mcp-header and checks
// the protocol's constraints on them.
func mcpHeaders(ts *typeSchema) ([]paramHeader, error) {
	var hs []paramHeader
	seen := map[string]bool{}
	for _, name := range ts.order {
		p := ts.props[name]
		if p.MCPHeader == nil {
			continue
		}
		h := *p.MCPHeader
		if h == "" || !isToken(h) {
			return nil, fmt.Errorf("argument %q: x-mcp-header %q is not an HTTP token", name, h)
		}
		lower := strings.ToLower(h)
		if seen[lower] {
			return nil, fmt.Errorf("argument %q: x-mcp-header %q is used twice", name, h)
		}
		seen[lower] = true
		kind, _ := p.Type.(string)
		if kind != "string" && kind != "integer" && kind != "boolean" {
			return nil, fmt.Errorf("argument %q: x-mcp-header needs a string, integer or boolean, not %v", name, p.Type)
		}
		hs = append(hs, paramHeader{header: lower, name: h, prop: name, kind: kind})
	}
	return hs, nil
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func toolListJSON(def *ToolDef, t *tool) ([]byte, error) {
	b := []byte(`{"name":`)
	b = protocol.AppendString(b, def.name)
	b = protocol.AppendOptString(b, "title", def.title)
	b = protocol.AppendOptString(b, "description", def.description)
	b = append(b, `,"inputSchema":`...)
	b = append(b, t.input.raw...)
	if t.output != nil {
		b = append(b, `,"outputSchema":`...)
		b = append(b, t.output...)
	}
	if !noAnnotations(def.annotations) {
		a, err := json.Marshal(def.annotations)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"annotations":`...)
		b = append(b, a...)
	}
	if len(def.icons) > 0 {
		ic, err := json.Marshal(def.icons)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"icons":`...)
		b = append(b, ic...)
	}
	b, err := protocol.AppendMeta(b, def.meta, nil)
	if err != nil {
		return nil, fmt.Errorf("_meta: %w", err)
	}
	return append(b, '}'), nil
}

// invoke validates the arguments, calls the tool and turns what it
// returned into a result. A *Error from the tool is returned as a protocol
// error; any other failure is a result with isError set.
//
// checked says args lie inside a message already validated as JSON.
func (t *tool) invoke(c *Context, args json.RawMessage, checked bool) (res *ToolResult, err error) {
	if t.via != nil {
		return t.via.invoke(t, c, args, checked)
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	// A struct argument (the only kind with a filler) is filled from the
	// generic value, and its fields keep only the values of members: the
	// top-level map itself is reused.
	var into map[string]any
	if t.fill != nil {
		into = argMaps.Get().(map[string]any)
	}
	arg, res, err := t.decodeValidated(args, checked, into)
	if into != nil {
		putArgMap(into)
	}
	if err != nil || res != nil {
		return res, err
	}
	out, callErr, panicked := c.srv.safeCall(c, &t.call, arg, "tool ", t.name)
	if panicked {
		if c.task != nil {
			return nil, &Error{Code: CodeInternalError, Message: "Tool " + t.name + " failed with an internal error."}
		}
		return ErrorResult("Tool %s failed with an internal error.", t.name), nil
	}
	if callErr != nil {
		return toolFailure(callErr)
	}
	if res, err = t.toResult(out); res != nil && err == nil && res.Encoded() != nil && !c.passesEncoded() {
		// A result left encoded (a proxy's) is decoded for whatever may
		// look at it.
		if derr := res.Decode(); derr != nil {
			c.srv.logger.Warn("sake: a tool's encoded result is not a tools/call result", "tool", t.name, "err", derr)
			return ErrorResult("Tool %s failed: its result could not be read.", t.name), nil
		}
	}
	return res, err
}

// passesEncoded reports whether a tool result left encoded
// (protocol.ToolResultFromWire) can go into the reply as it is: nothing
// between the tool and the reply looks at it (no middleware but
// UseObserving's, no Request hook, not a task). Otherwise it is decoded
// first.
func (c *Context) passesEncoded() bool {
	o := &c.srv.opts
	return c.task == nil && o.resultReaders == 0 && (o.hooks == nil || o.hooks.Request == nil)
}

// toolFailure turns the error of a tool's code into what the call
// answers: questions, authorization failures and *Error as they are, any
// other error as a result with isError set.
func toolFailure(callErr error) (*ToolResult, error) {
	if errors.Is(callErr, ErrInputRequired) {
		return nil, callErr
	}
	if _, _, isAuth := authError(callErr); isAuth {
		return nil, callErr
	}
	if e, ok := errors.AsType[*Error](callErr); ok {
		return nil, e
	}
	return protocol.ErrorResultFrom(callErr), nil
}

// decodeValidated decodes the arguments (an object's members into into,
// when not nil), validates them and returns the tool's argument: the
// result to answer instead when they are invalid, or the error for text
// that is not JSON. Nothing it returns refers to into.
func (t *tool) decodeValidated(args json.RawMessage, checked bool, into map[string]any) (reflect.Value, *ToolResult, error) {
	generic, err := decodeArgs(args, t.input.keys, checked, into)
	if err != nil {
		return reflect.Value{}, nil, InvalidParams("Invalid params: arguments are not valid JSON: %v", err)
	}
	if err := t.input.validator.Validate(generic); err != nil {
		return reflect.Value{}, ErrorResult("Invalid arguments for tool %s: %v", t.name, err), nil
	}
	var arg reflect.Value
	if t.call.argType != nil {
		arg = reflect.New(t.call.argType)
		if err := t.decodeArg(arg, args, generic); err != nil {
			return reflect.Value{}, ErrorResult("Invalid arguments for tool %s: %s", t.name, describeDecodeError(err)), nil
		}
	}
	return arg, nil, nil
}

// decodeArg sets *arg from the arguments, validated and already decoded
// into generic: a map[string]any argument is the generic value itself, a
// struct is filled from it, and only what the filler cannot do exactly is
// decoded again from the JSON text.
func (t *tool) decodeArg(arg reflect.Value, args json.RawMessage, generic any) error {
	switch {
	case t.call.argType == mapAnyType:
		if m, ok := generic.(map[string]any); ok {
			arg.Elem().Set(reflect.ValueOf(m))
			return nil
		}
	case t.call.argType == rawMessageType:
		arg.Elem().SetBytes(append([]byte(nil), args...))
		return nil
	case t.fill != nil:
		var first error
		err := t.fill.fill(arg.Elem(), generic, nil, &first)
		if err == nil {
			return first
		}
		arg.Elem().SetZero() // inexact: start again from the text
	}
	return json.Unmarshal(args, arg.Interface())
}

func describeDecodeError(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		return fmt.Sprintf("%s: must be %s, not %s", ute.Field, ute.Type, ute.Value)
	}
	return err.Error()
}

// textBlock holds a one-text-block result in one allocation.
type textBlock struct {
	res     ToolResult
	content [1]Content
	text    TextContent
}

func textResult(s string) *ToolResult {
	b := &textBlock{text: TextContent{Text: s}}
	b.content[0] = &b.text
	b.res.Content = b.content[:]
	return &b.res
}

// toResult converts a tool's return value into a ToolResult.
func (t *tool) toResult(v reflect.Value) (*ToolResult, error) {
	if t.call.result == nil {
		return &ToolResult{Content: []Content{}}, nil
	}
	switch x := v.Interface().(type) {
	case string:
		return textResult(x), nil
	case *ToolResult:
		if x == nil {
			return &ToolResult{Content: []Content{}}, nil
		}
		return x, nil
	case ToolResult:
		return &x, nil
	case []Content:
		return &ToolResult{Content: x}, nil
	case Content:
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return &ToolResult{Content: []Content{}}, nil
		}
		return &ToolResult{Content: []Content{x}}, nil
	}
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil() {
		if t.structured {
			return &ToolResult{Content: []Content{Text("null")}}, nil
		}
	}
	b, err := protocol.MarshalNoEscape(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("tool %s: cannot encode its result as JSON: %w", t.name, err)
	}
	r := &ToolResult{Content: []Content{&TextContent{Text: string(b)}}}
	if t.structured {
		r.StructuredContent = json.RawMessage(b)
	}
	return r, nil
}
