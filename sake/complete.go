package sake

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/sakemcp/sake-go/sake/protocol"
)

var (
	completeRequestType = reflect.TypeFor[CompleteRequest]()
	stringsType         = reflect.TypeFor[[]string]()
	completionType      = reflect.TypeFor[Completion]()
	completionPtr       = reflect.TypeFor[*Completion]()
)

// completer completes one argument: with a handler, or from an enum.
type completer struct {
	call *callable
	enum []string
}

func acceptCompleteRequest(t reflect.Type) error {
	if t == completeRequestType {
		return nil
	}
	return fmt.Errorf("takes %s: a completion takes a sake.CompleteRequest", t)
}

// completionResolver turns what Complete was given (a function, or a method
// name when declared in Declare) into a completer.
type completionResolver func(handler any) (*completer, error)

// completionFunc resolves the functions given to components built at run
// time.
func completionFunc(handler any) (*completer, error) {
	return compileCompleter(reflect.ValueOf(handler), false)
}

func compileCompleter(fn reflect.Value, method bool) (*completer, error) {
	c, err := analyse(fn, method, acceptCompleteRequest)
	if err != nil {
		return nil, err
	}
	if c.argType == nil {
		return nil, fmt.Errorf("takes no sake.CompleteRequest")
	}
	switch c.result {
	case stringsType, completionType, completionPtr:
	default:
		return nil, fmt.Errorf("returns %v: a completion returns []string, sake.Completion or *sake.Completion", c.result)
	}
	return &completer{call: &c}, nil
}

func (k *completer) complete(c *Context, req CompleteRequest) (*Completion, error) {
	if k.call == nil {
		var values []string
		for _, e := range k.enum {
			if strings.HasPrefix(e, req.Value) {
				values = append(values, e)
			}
		}
		return clampCompletion(&Completion{Values: values}), nil
	}
	arg := reflect.New(completeRequestType)
	arg.Elem().Set(reflect.ValueOf(req))
	out, err, panicked := c.srv.safeCall(c, k.call, arg, "completion of ", req.Argument)
	if panicked {
		return nil, NewError(CodeInternalError, "completing %s failed with an internal error", req.Argument)
	}
	if err != nil {
		if e, ok := errors.AsType[*Error](err); ok {
			return nil, e
		}
		return nil, NewError(CodeInternalError, "completing %s failed: %v", req.Argument, err)
	}
	switch x := out.Interface().(type) {
	case []string:
		return clampCompletion(&Completion{Values: x}), nil
	case Completion:
		return clampCompletion(&x), nil
	case *Completion:
		if x == nil {
			return clampCompletion(&Completion{}), nil
		}
		return clampCompletion(x), nil
	}
	return clampCompletion(&Completion{}), nil
}

// clampCompletion keeps at most 100 values, as the protocol allows, and
// says there are more.
func clampCompletion(c *Completion) *Completion {
	if c.Values == nil {
		c.Values = []string{}
	}
	if len(c.Values) > protocol.MaxCompletionValues {
		total := len(c.Values)
		if c.Total == nil {
			c.Total = &total
		}
		c.Values = c.Values[:protocol.MaxCompletionValues]
		c.HasMore = true
	}
	return c
}
