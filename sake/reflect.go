package sake

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

var (
	sakeContextType = reflect.TypeFor[*Context]()
	stdContextType  = reflect.TypeFor[context.Context]()
	errorType       = reflect.TypeFor[error]()
	contentIface    = reflect.TypeFor[Content]()
	contentsType    = reflect.TypeFor[[]Content]()
	toolResultPtr   = reflect.TypeFor[*ToolResult]()
	toolResultType  = reflect.TypeFor[ToolResult]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	mapAnyType      = reflect.TypeFor[map[string]any]()
	mapStringType   = reflect.TypeFor[map[string]string]()
	stringType      = reflect.TypeFor[string]()
	bytesType       = reflect.TypeFor[[]byte]()
)

// callable is a function or bound method analysed once: how to pass the
// context and the argument, and what it returns.
type callable struct {
	fn      reflect.Value
	method  bool         // fn is a method expression: the receiver comes first
	sakeCtx bool         // the first parameter is *Context (else context.Context)
	argType reflect.Type // nil when the function takes no argument
	argPtr  bool         // the argument is a pointer to argType
	result  reflect.Type // nil when the function returns only an error
	hasErr  bool
	// recv, when valid, is the receiver the method is called on instead
	// of the server's own: a component mounted from another server keeps
	// calling that server's value.
	recv reflect.Value
	// raw, when not nil, is fn itself: a function of the form a proxy's
	// tools take, called without reflection.
	raw func(*Context, json.RawMessage) (*ToolResult, error)
}

// rawToolType is the type of a tool function that takes its arguments
// as they came and returns a result (a proxy's tools).
var rawToolType = reflect.TypeFor[func(*Context, json.RawMessage) (*ToolResult, error)]()

// analyse checks fn's signature: a context, then at most one argument,
// then a result and/or an error. accept says which argument types are
// allowed (nil allows none).
func analyse(fn reflect.Value, method bool, accept func(reflect.Type) error) (callable, error) {
	c := callable{fn: fn, method: method}
	if fn.Kind() != reflect.Func {
		return c, fmt.Errorf("is a %s, not a function", fn.Type())
	}
	t := signature{fn.Type(), 0}
	if method {
		t.skip = 1
	}
	if t.IsVariadic() {
		return c, fmt.Errorf("is variadic")
	}
	if t.NumIn() == 0 {
		return c, fmt.Errorf("takes no context: the first parameter must be *sake.Context or context.Context")
	}
	switch t.In(0) {
	case sakeContextType:
		c.sakeCtx = true
	case stdContextType:
	default:
		return c, fmt.Errorf("first parameter is %s: it must be *sake.Context or context.Context", t.In(0))
	}
	switch t.NumIn() {
	case 1:
	case 2:
		at := t.In(1)
		if accept == nil {
			return c, fmt.Errorf("takes an argument of type %s, but takes none here", at)
		}
		if at.Kind() == reflect.Pointer && at.Elem().Kind() == reflect.Struct {
			c.argPtr = true
			at = at.Elem()
		}
		if err := accept(at); err != nil {
			return c, err
		}
		c.argType = at
	default:
		return c, fmt.Errorf("takes %d parameters: it takes a context and at most one argument (a struct)", t.NumIn())
	}
	switch t.NumOut() {
	case 1:
		if t.Out(0) == errorType {
			c.hasErr = true
		} else {
			c.result = t.Out(0)
		}
	case 2:
		if t.Out(1) != errorType {
			return c, fmt.Errorf("second result is %s: it must be error", t.Out(1))
		}
		c.result, c.hasErr = t.Out(0), true
	case 0:
		return c, fmt.Errorf("returns nothing: it must return a result, an error, or both")
	default:
		return c, fmt.Errorf("returns %d values: it returns a result and an error", t.NumOut())
	}
	if !method && fn.Type() == rawToolType {
		c.raw = fn.Interface().(func(*Context, json.RawMessage) (*ToolResult, error))
	}
	return c, nil
}

// signature views a function type, optionally without its receiver.
type signature struct {
	reflect.Type
	skip int
}

func (s signature) NumIn() int            { return s.Type.NumIn() - s.skip }
func (s signature) In(i int) reflect.Type { return s.Type.In(i + s.skip) }

// call runs the function (a method on recv when it is a method) and
// returns its result value and error.
func (c *callable) call(recv reflect.Value, ctx *Context, arg reflect.Value) (reflect.Value, error) {
	if c.raw != nil {
		res, err := c.raw(ctx, arg.Elem().Bytes())
		return reflect.ValueOf(res), err
	}
	var in [3]reflect.Value
	n := 0
	if c.method {
		in[0] = recv
		if c.recv.IsValid() {
			in[0] = c.recv
		}
		n = 1
	}
	if c.sakeCtx {
		in[n] = reflect.ValueOf(ctx)
	} else {
		ctx.self = ctx
		in[n] = reflect.ValueOf(&ctx.self).Elem()
	}
	n++
	if c.argType != nil {
		if c.argPtr {
			in[n] = arg
		} else {
			in[n] = arg.Elem()
		}
		n++
	}
	out := c.fn.Call(in[:n])
	var res reflect.Value
	var err error
	if c.result != nil {
		res = out[0]
	}
	if c.hasErr {
		if e := out[len(out)-1]; !e.IsNil() {
			err = e.Interface().(error)
		}
	}
	return res, err
}

// snakeCase turns a Go method name into a tool name:
// ListOpenIssues -> list_open_issues, GetHTTPStatus -> get_http_status.
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				// A plural acronym (IDs, URLs) stays one word.
				if nextLower && rs[i+1] == 's' && (i+2 == len(rs) || unicode.IsUpper(rs[i+2])) && unicode.IsUpper(prev) {
					nextLower = false
				}
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ConstructionError lists everything wrong with a server value, the way
// New found it: each unsuitable method or declaration with the reason.
type ConstructionError struct {
	Type     string
	Problems []string
}

// Error implements error.
func (e *ConstructionError) Error() string {
	return fmt.Sprintf("sake: cannot serve %s:\n  %s", e.Type, strings.Join(e.Problems, "\n  "))
}
