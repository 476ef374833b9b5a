package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// Where an argument goes in the request.
const (
	inPath   = "path"
	inQuery  = "query"
	inHeader = "header"
	inBody   = "body" // one property of a JSON object body
	inWhole  = "body*"
)

// wholeBodyArg names the argument that carries a request body whose
// schema has no fixed properties (an array, a map, a choice, a non-JSON
// body).
const wholeBodyArg = "body"

// argument is one argument of a tool and where its value goes.
type argument struct {
	name    string // the tool's argument
	in      string // inPath, inQuery...
	param   string // the parameter's or property's name in the request
	style   string
	explode bool
	asJSON  bool // a parameter with content: its value is sent as JSON text
}

// operation is one operation of the document, converted.
type operation struct {
	name        string
	method      string
	path        string
	title       string
	description string
	tags        []string
	args        []argument
	pathParams  []string // in the order of the path
	required    []string // required arguments
	input       json.RawMessage
	output      json.RawMessage // nil: no JSON response declared
	wrap        bool            // the response is not an object: structured content is {"result": …}
	bodyType    string          // the request body's media type, "" for none
	bodyObject  bool            // the body is a JSON object whose properties are arguments
	bodyNeeded  bool            // the document requires a body
	jsonResult  bool            // the API declares a JSON response
}

// ignoredHeaders are header parameters OpenAPI says to ignore: the
// request's own headers.
var ignoredHeaders = []string{"accept", "content-type", "authorization"}

// locationOrder is the precedence of the places arguments come from: a
// name taken by an earlier place gets a suffix in a later one.
var locationOrder = []string{inPath, inQuery, inHeader}

// build converts an operation. Arguments are named after their
// parameters and body properties; when two share a name, the one from the
// earlier place (path, then query, then header, then body) keeps it and
// the other becomes name__query, name__header or name__body.
func (s *schemaSet) build(method, path string, pathParams []*v3.Parameter, op *v3.Operation) (*operation, error) {
	o := &operation{method: strings.ToUpper(method), path: path, title: op.Summary, tags: op.Tags}
	o.description = op.Description
	if o.description == "" {
		o.description = op.Summary
	}
	if o.description == "" {
		o.description = o.method + " " + path // what the model has to go on
	}
	params := undeclaredPathParams(path, mergeParams(pathParams, op.Parameters))
	props := map[string]any{}
	taken := map[string]bool{}
	add := func(arg argument, schema any, required bool) {
		name := arg.param
		if taken[name] {
			name += "__" + strings.TrimSuffix(arg.in, "*")
		}
		for taken[name] {
			name += "_"
		}
		arg.name = name
		taken[name] = true
		o.args = append(o.args, arg)
		props[name] = schema
		if required {
			o.required = append(o.required, name)
		}
	}
	for _, in := range locationOrder {
		for _, p := range params {
			if p.In != in || (in == inHeader && slices.Contains(ignoredHeaders, strings.ToLower(p.Name))) {
				continue
			}
			schema, asJSON, err := paramSchema(p)
			if err != nil {
				return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
			}
			arg := argument{in: in, param: p.Name, style: p.Style, asJSON: asJSON}
			arg.explode = arg.style == "" || arg.style == "form"
			if p.Explode != nil {
				arg.explode = *p.Explode
			}
			add(arg, describe(schema, p.Description), in == inPath || (p.Required != nil && *p.Required))
		}
	}
	for _, p := range params {
		if p.In == inPath {
			o.pathParams = append(o.pathParams, p.Name)
		}
	}
	slices.SortFunc(o.pathParams, func(a, b string) int {
		return strings.Index(path, "{"+a+"}") - strings.Index(path, "{"+b+"}")
	})
	if rb := op.RequestBody; rb != nil && rb.Content != nil {
		media, mt := bodyMedia(rb)
		o.bodyType = media
		required := rb.Required != nil && *rb.Required
		o.bodyNeeded = required
		var schema any
		var shape objectShape
		flat := false
		if mt != nil && (isJSON(media) || isForm(media)) {
			var err error
			if schema, err = convert(mt.Schema); err != nil {
				return nil, fmt.Errorf("request body: %w", err)
			}
			shape, flat = s.flatten(schema)
		}
		switch {
		case flat:
			o.bodyObject = true
			for _, name := range sortedKeys(shape.props) {
				add(argument{in: inBody, param: name}, shape.props[name], required && slices.Contains(shape.required, name))
			}
		case schema != nil && isJSON(media):
			add(argument{in: inWhole, param: wholeBodyArg}, describe(schema, rb.Description), required)
		case media != "":
			add(argument{in: inWhole, param: wholeBodyArg},
				describe(map[string]any{"type": "string"}, "The request body, sent as "+media+"."), required)
		}
	}
	input := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(o.required) > 0 {
		input["required"] = o.required
	}
	if defs := s.defs(props); defs != nil {
		input["$defs"] = defs
	}
	var err error
	if o.input, err = json.Marshal(input); err != nil {
		return nil, err
	}
	return o, s.buildOutput(o, op)
}

// buildOutput finds the JSON schema of the operation's success response
// and makes it the tool's output schema, wrapped under "result" when it
// is not an object's.
func (s *schemaSet) buildOutput(o *operation, op *v3.Operation) error {
	if op.Responses == nil || op.Responses.Codes == nil {
		return nil
	}
	var chosen *v3.MediaType
	for code, r := range op.Responses.Codes.FromOldest() {
		if !strings.HasPrefix(code, "2") || r == nil || r.Content == nil {
			continue
		}
		for media, mt := range r.Content.FromOldest() {
			if isJSON(media) {
				chosen = mt
				break
			}
		}
		if chosen != nil {
			break
		}
	}
	if chosen == nil {
		return nil
	}
	o.jsonResult = true
	if chosen.Schema == nil {
		return nil
	}
	schema, err := convert(chosen.Schema)
	if err != nil {
		return fmt.Errorf("response: %w", err)
	}
	out, ok := schema.(map[string]any)
	if !ok || !s.isObject(schema) {
		out = map[string]any{"type": "object", "properties": map[string]any{"result": schema}, "required": []string{"result"}}
		o.wrap = true
	} else if resolved, ok := s.resolve(out); ok {
		// The schema a reference names, at the top, where a client
		// looks for the properties; $defs are added to a copy.
		out = maps.Clone(resolved)
	}
	if defs := s.defs(schema); defs != nil {
		out["$defs"] = defs
	}
	o.output, err = json.Marshal(out)
	return err
}

// paramSchema returns a parameter's schema: its schema, or that of its
// content (asJSON: the value is sent as JSON text).
func paramSchema(p *v3.Parameter) (schema any, asJSON bool, err error) {
	if p.Schema != nil {
		schema, err = convert(p.Schema)
		return schema, false, err
	}
	if p.Content != nil {
		for _, mt := range p.Content.FromOldest() {
			schema, err = convert(mt.Schema)
			return schema, true, err
		}
	}
	return map[string]any{"type": "string"}, false, nil
}

// mergeParams puts an operation's parameters over its path's: the
// operation's replaces the path's of the same name and place.
func mergeParams(pathParams, opParams []*v3.Parameter) []*v3.Parameter {
	var out []*v3.Parameter
	for _, p := range pathParams {
		if p == nil || slices.ContainsFunc(opParams, func(q *v3.Parameter) bool { return q != nil && q.Name == p.Name && q.In == p.In }) {
			continue
		}
		out = append(out, p)
	}
	for _, p := range opParams {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// pathVar finds the variables of a path template.
var pathVar = regexp.MustCompile(`\{([^{}/]+)\}`)

// undeclaredPathParams adds a required string parameter for each variable
// of the path template the document does not declare, so that no call
// sends a template's braces to the API.
func undeclaredPathParams(path string, params []*v3.Parameter) []*v3.Parameter {
	required := true
	for _, m := range pathVar.FindAllStringSubmatch(path, -1) {
		if !slices.ContainsFunc(params, func(p *v3.Parameter) bool { return p.In == inPath && p.Name == m[1] }) {
			params = append(params, &v3.Parameter{Name: m[1], In: inPath, Required: &required})
		}
	}
	return params
}

// bodyMedia picks the request body's media type: JSON when offered,
// else a form (application/x-www-form-urlencoded), else the first listed.
func bodyMedia(rb *v3.RequestBody) (string, *v3.MediaType) {
	var firstType, formType string
	var first, form *v3.MediaType
	for media, mt := range rb.Content.FromOldest() {
		if isJSON(media) {
			return media, mt
		}
		if formType == "" && isForm(media) {
			formType, form = media, mt
		}
		if firstType == "" {
			firstType, first = media, mt
		}
	}
	if form != nil {
		return formType, form
	}
	return firstType, first
}

// isForm reports whether a media type is an HTML form's encoding,
// application/x-www-form-urlencoded.
func isForm(media string) bool {
	media, _, _ = strings.Cut(media, ";")
	return strings.EqualFold(strings.TrimSpace(media), "application/x-www-form-urlencoded")
}

// isJSON reports whether a media type is JSON: application/json or a
// +json suffix, with any parameters.
func isJSON(media string) bool {
	media, _, _ = strings.Cut(media, ";")
	media = strings.ToLower(strings.TrimSpace(media))
	return media == "application/json" || strings.HasSuffix(media, "+json")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
