package sake

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/sakemcp/sake-go/sake/internal/uritemplate"
	"github.com/sakemcp/sake-go/sake/protocol"
)

var resourceContentsType = reflect.TypeFor[ResourceContents]()

// resource is a compiled static resource or resource template.
type resource struct {
	require     Requirement
	uri         string // the URI, or the template text
	name        string
	mimeType    string
	tmpl        *uritemplate.Template
	call        callable
	listJSON    []byte
	byRevision  revisionJSON
	completions map[string]*completer
	tags        []string
	gate        *childGate  // the list policy of the server it was mounted from, if any
	version     string      // its version, "" when it has none
	others      []*resource // on the entry a registry holds: the other versions of its URI, highest first
}

func acceptTemplateVars(t reflect.Type) error {
	if t == mapStringType || t.Kind() == reflect.Struct {
		return nil
	}
	return fmt.Errorf("takes %s: a resource template's argument must be a struct of its variables or map[string]string", t)
}

func checkResourceResult(r reflect.Type) error {
	switch r {
	case nil:
		return fmt.Errorf("returns only an error: a resource returns its contents (string, []byte, sake.ResourceContents or []sake.ResourceContents)")
	case stringType, bytesType, resourceContentsType, reflect.PointerTo(resourceContentsType), reflect.SliceOf(resourceContentsType):
		return nil
	}
	return fmt.Errorf("returns %s: a resource returns string, []byte, sake.ResourceContents or []sake.ResourceContents", r)
}

func compileResource(def *ResourceDef, fn reflect.Value, method bool, resolve completionResolver) (*resource, error) {
	if err := checkVersion(def.version); err != nil {
		return nil, err
	}
	r := &resource{uri: def.uri, name: def.name, mimeType: def.mimeType, require: def.require, tags: slices.Clone(def.tags),
		version: def.version}
	var accept func(reflect.Type) error
	if def.template {
		t, err := uritemplate.Parse(def.uri)
		if err != nil {
			return nil, fmt.Errorf("URI template %q: %w", def.uri, err)
		}
		r.tmpl = t
		accept = acceptTemplateVars
	}
	c, err := analyse(fn, method, accept)
	if err != nil {
		return nil, err
	}
	if err := checkResourceResult(c.result); err != nil {
		return nil, err
	}
	r.call = c
	if def.template && c.argType != nil && c.argType.Kind() == reflect.Struct {
		ts, err := schemaFor(c.argType)
		if err != nil {
			return nil, err
		}
		for _, v := range r.tmpl.Vars() {
			if _, ok := ts.props[v]; !ok {
				return nil, fmt.Errorf("URI template %q has variable %q, but %s has no field for it (json name %q)", def.uri, v, c.argType, v)
			}
		}
		for name := range ts.props {
			if !slices.Contains(r.tmpl.Vars(), name) {
				return nil, fmt.Errorf("%s has field %q, but URI template %q has no such variable", c.argType, name, def.uri)
			}
			if k, _ := ts.props[name].Type.(string); k != "string" {
				return nil, fmt.Errorf("%s field %q must be a string: template variables are strings", c.argType, name)
			}
		}
	}
	if !def.template && c.argType != nil {
		return nil, fmt.Errorf("a static resource takes only a context")
	}
	b := []byte(`{`)
	if def.template {
		b = append(b, `"uriTemplate":`...)
	} else {
		b = append(b, `"uri":`...)
	}
	b = protocol.AppendString(b, def.uri)
	b = append(b, `,"name":`...)
	b = protocol.AppendString(b, def.name)
	b = protocol.AppendOptString(b, "title", def.title)
	b = protocol.AppendOptString(b, "description", def.description)
	b = protocol.AppendOptString(b, "mimeType", def.mimeType)
	if def.size != nil && !def.template {
		b = append(b, `,"size":`...)
		b, _ = protocol.AppendAny(b, int(*def.size))
	}
	for _, part := range []struct {
		key string
		v   any
		ok  bool
	}{{"icons", def.icons, len(def.icons) > 0}, {"annotations", def.annotations, def.annotations != nil}} {
		if !part.ok {
			continue
		}
		j, err := json.Marshal(part.v)
		if err != nil {
			return nil, err
		}
		b = protocol.AppendKey(b, part.key, false)
		b = append(b, j...)
	}
	if b, err = protocol.AppendMeta(b, def.meta, nil); err != nil {
		return nil, err
	}
	r.listJSON = append(b, '}')
	r.byRevision = shapeRevisions(r.listJSON, false)
	r.completions = map[string]*completer{}
	// Unknown variables first, whatever the map's order, so the same
	// declaration always gets the same error.
	for v := range def.completions {
		if r.tmpl == nil || !slices.Contains(r.tmpl.Vars(), v) {
			return nil, fmt.Errorf("Complete names variable %q, which the URI template does not have", v)
		}
	}
	for v, h := range def.completions {
		k, err := resolve(h)
		if err != nil {
			return nil, fmt.Errorf("completion of %s: %w", v, err)
		}
		r.completions[v] = k
	}
	return r, nil
}

// read calls the resource for uri (with the template's variables) and
// normalises what it returned.
func (r *resource) read(c *Context, uri string, vars map[string]string) ([]ResourceContents, error) {
	var arg reflect.Value
	if r.call.argType != nil {
		arg = reflect.New(r.call.argType)
		if r.call.argType == mapStringType {
			arg.Elem().Set(reflect.ValueOf(vars))
		} else {
			b, _ := json.Marshal(vars)
			if err := json.Unmarshal(b, arg.Interface()); err != nil {
				return nil, InvalidParams("URI %q: %v", uri, err)
			}
		}
	}
	out, err, panicked := c.srv.safeCall(c, &r.call, arg, "resource ", r.uri)
	if panicked {
		return nil, NewError(CodeInternalError, "reading %s failed with an internal error", uri)
	}
	if err != nil {
		return nil, err
	}
	var list []ResourceContents
	switch x := out.Interface().(type) {
	case string:
		list = []ResourceContents{{URI: uri, MIMEType: r.mimeType, Text: x}}
		if list[0].MIMEType == "" {
			list[0].MIMEType = "text/plain"
		}
	case []byte:
		if x == nil {
			x = []byte{}
		}
		list = []ResourceContents{{URI: uri, MIMEType: r.mimeType, Blob: x}}
		if list[0].MIMEType == "" {
			list[0].MIMEType = "application/octet-stream"
		}
	case ResourceContents:
		list = []ResourceContents{x}
	case *ResourceContents:
		if x == nil {
			return nil, ErrResourceNotFound
		}
		list = []ResourceContents{*x}
	case []ResourceContents:
		list = x
	}
	if len(list) == 0 {
		return nil, ErrResourceNotFound
	}
	for i := range list {
		if list[i].URI == "" {
			list[i].URI = uri
		}
		if list[i].MIMEType == "" {
			list[i].MIMEType = r.mimeType
		}
	}
	return list, nil
}

// resourceNotFound is the era's error for an unknown URI.
func resourceNotFound(era Era, uri string) *Error {
	code := CodeInvalidParams
	if era == EraLegacy {
		code = CodeResourceNotFound
	}
	return &Error{Code: code, Message: "Resource not found", Data: map[string]string{"uri": uri}}
}

// readError maps what a resource returned to the error the client sees.
func readError(era Era, uri string, err error) error {
	if errors.Is(err, ErrInputRequired) {
		return err
	}
	if errors.Is(err, ErrResourceNotFound) {
		return resourceNotFound(era, uri)
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	return &Error{Code: CodeInternalError, Message: fmt.Sprintf("reading %s failed: %v", uri, err)}
}
