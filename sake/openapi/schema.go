package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// componentPrefix is how a document refers to one of its schemas; the
// tools' schemas refer to the same schema under defsPrefix.
const (
	componentPrefix = "#/components/schemas/"
	defsPrefix      = "#/$defs/"
)

// maxRefDepth bounds how many references are followed from one schema
// to the schema it names (a chain of aliases).
const maxRefDepth = 32

// maxShapeSteps bounds the schemas visited to flatten one body or to
// decide whether one response is an object: allOf parts that refer to
// each other would otherwise be visited again and again.
const maxShapeSteps = 256

// component is one schema of the document's components, as JSON Schema
// 2020-12, with the names of the components it refers to.
type component struct {
	schema any
	refs   []string
}

// schemaSet converts the document's schemas into JSON Schema 2020-12:
// OpenAPI 3.0's nullable and boolean exclusive bounds become their
// 2020-12 forms, references to components become references into the
// tool schema's $defs, and what a validator cannot use (a regular
// expression Go cannot compile, a reference outside the document) is
// left out, so the schema accepts more rather than refusing everything.
type schemaSet struct {
	components map[string]component
}

// proxyJSON renders a schema of the document as a generic JSON value,
// keeping references as they are. It decodes the schema's own YAML node,
// which keeps every keyword as written and costs far less than building
// libopenapi's model of the schema; a schema without a node (built in
// code) is rendered from the model.
func proxyJSON(sp *base.SchemaProxy) (any, error) {
	if sp == nil {
		return map[string]any{}, nil
	}
	if sp.IsReference() {
		return map[string]any{"$ref": sp.GetReference()}, nil
	}
	if node := sp.GetValueNode(); node != nil {
		var v any
		if err := node.Decode(&v); err != nil {
			return nil, err
		}
		return jsonValue(v), nil
	}
	s := sp.Schema()
	if s == nil {
		if err := sp.GetBuildError(); err != nil {
			return nil, err
		}
		return map[string]any{}, nil
	}
	b, err := s.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// jsonValue turns a decoded YAML value into one JSON can encode: maps
// with keys that are not strings (200: in an example) get string keys,
// timestamps become RFC 3339 text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonValue(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonValue(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonValue(e)
		}
		return x
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return v
}

// convert turns one schema of the document into JSON Schema 2020-12.
func convert(sp *base.SchemaProxy) (any, error) {
	raw, err := proxyJSON(sp)
	if err != nil {
		return nil, err
	}
	return normalize(raw), nil
}

// refsOf returns the components a converted schema refers to.
func refsOf(v any) []string {
	refs := map[string]bool{}
	collectRefs(v, refs)
	return slices.Sorted(maps.Keys(refs))
}

func collectRefs(v any, refs map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if ref, ok := e.(string); ok && k == "$ref" {
				if name, ok := defName(ref); ok {
					refs[name] = true
				}
				continue
			}
			collectRefs(e, refs)
		}
	case []any:
		for _, e := range x {
			collectRefs(e, refs)
		}
	}
}

// Keywords whose value is a schema, a list of schemas, or a map of names
// to schemas: the places normalize descends into.
var (
	schemaKeywords = []string{"items", "not", "additionalProperties", "contains", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapKeywords  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	// droppedKeywords are OpenAPI annotations with no meaning to a
	// JSON Schema validator or a model.
	droppedKeywords = []string{"xml", "externalDocs", "example", "discriminator", "nullable"}
)

// normalize converts one schema (a generic JSON value) in place.
func normalize(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // true, false
	}
	if ref, ok := m["$ref"].(string); ok {
		if rest, ok := strings.CutPrefix(ref, componentPrefix); ok && rest != "" {
			m["$ref"] = defsPrefix + rest
		} else if !strings.HasPrefix(ref, defsPrefix) {
			// A reference this schema cannot hold (another part of
			// the document, another file): accept anything there.
			delete(m, "$ref")
		}
	}
	if m["nullable"] == true {
		switch t := m["type"].(type) {
		case string:
			m["type"] = []any{t, "null"}
		case []any:
			if !slices.Contains(t, any("null")) {
				m["type"] = append(t, "null")
			}
		}
		if e, ok := m["enum"].([]any); ok && !slices.Contains(e, nil) {
			m["enum"] = append(e, nil)
		}
	}
	exclusiveBound(m, "exclusiveMinimum", "minimum")
	exclusiveBound(m, "exclusiveMaximum", "maximum")
	if p, ok := m["pattern"].(string); ok {
		if _, err := regexp.Compile(p); err != nil {
			delete(m, "pattern") // an ECMA-262 feature Go's regexp lacks
		}
	}
	for k := range m {
		if strings.HasPrefix(k, "x-") || slices.Contains(droppedKeywords, k) {
			delete(m, k)
		}
	}
	for _, k := range schemaKeywords {
		if s, ok := m[k]; ok {
			if _, isList := s.([]any); !isList {
				m[k] = normalize(s)
			}
		}
	}
	for _, k := range schemaListKeywords {
		if list, ok := m[k].([]any); ok {
			for i := range list {
				list[i] = normalize(list[i])
			}
		}
	}
	for _, k := range schemaMapKeywords {
		if props, ok := m[k].(map[string]any); ok {
			for name, s := range props {
				props[name] = normalize(s)
			}
		}
	}
	return m
}

// exclusiveBound turns OpenAPI 3.0's boolean exclusive bound into the
// numeric one of JSON Schema 2020-12.
func exclusiveBound(m map[string]any, exclusive, bound string) {
	b, ok := m[exclusive].(bool)
	if !ok {
		return
	}
	delete(m, exclusive)
	if n, ok := m[bound]; ok && b {
		m[exclusive] = n
		delete(m, bound)
	}
}

// defName returns the component a reference into $defs names:
// "#/$defs/Pet/properties/id" names Pet.
func defName(ref string) (string, bool) {
	rest, ok := strings.CutPrefix(ref, defsPrefix)
	if !ok || rest == "" {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"), true
}

// defs returns the $defs a converted schema needs: the components it
// refers to and every component they refer to.
func (s *schemaSet) defs(v any) map[string]any {
	refs := refsOf(v)
	if len(refs) == 0 {
		return nil
	}
	out := map[string]any{}
	queue := slices.Clone(refs)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := out[name]; done {
			continue
		}
		c, ok := s.components[name]
		if !ok {
			out[name] = map[string]any{} // a reference to a missing component accepts anything
			continue
		}
		out[name] = c.schema
		queue = append(queue, c.refs...)
	}
	return out
}

// resolve follows a schema's top-level reference to the component it
// names.
func (s *schemaSet) resolve(v any) (map[string]any, bool) {
	for range maxRefDepth {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, true
		}
		name, ok := defName(ref)
		if !ok || strings.Count(ref, "/") != 2 {
			return nil, false
		}
		c, ok := s.components[name]
		if !ok {
			return nil, false
		}
		v = c.schema
	}
	return nil, false
}

// objectShape is an object schema's properties, with allOf merged.
type objectShape struct {
	props    map[string]any
	required []string
}

// flatten merges an object schema and its allOf parts into one set of
// properties. It fails (ok false) for what has no fixed properties: a
// map (additionalProperties), a choice (oneOf, anyOf), a type other than
// object, or no properties at all.
func (s *schemaSet) flatten(v any) (objectShape, bool) {
	shape := objectShape{props: map[string]any{}}
	steps := 0
	if !s.flattenInto(v, &shape, &steps) || len(shape.props) == 0 {
		return objectShape{}, false
	}
	slices.Sort(shape.required)
	shape.required = slices.Compact(shape.required)
	return shape, true
}

func (s *schemaSet) flattenInto(v any, shape *objectShape, steps *int) bool {
	if *steps++; *steps > maxShapeSteps {
		return false
	}
	m, ok := s.resolve(v)
	if !ok {
		return false
	}
	if t, ok := m["type"]; ok && t != "object" {
		return false
	}
	for _, k := range []string{"oneOf", "anyOf", "patternProperties", "not", "if"} {
		if _, ok := m[k]; ok {
			return false
		}
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false {
		return false
	}
	if parts, ok := m["allOf"].([]any); ok {
		for _, p := range parts {
			if !s.flattenInto(p, shape, steps) {
				return false
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			shape.props[name] = p
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				shape.required = append(shape.required, name)
			}
		}
	}
	return true
}

// isObject reports whether a schema only accepts JSON objects, as MCP
// requires of an output schema.
func (s *schemaSet) isObject(v any) bool {
	steps := 0
	return s.isObjectWithin(v, &steps)
}

func (s *schemaSet) isObjectWithin(v any, steps *int) bool {
	if *steps++; *steps > maxShapeSteps {
		return false
	}
	m, ok := s.resolve(v)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		return t == "object"
	case nil:
		if _, ok := m["properties"]; ok {
			return true
		}
		parts, ok := m["allOf"].([]any)
		if !ok || len(parts) == 0 {
			return false
		}
		for _, p := range parts {
			if !s.isObjectWithin(p, steps) {
				return false
			}
		}
		return true
	}
	return false
}

// describe sets a schema's description when it has none.
func describe(v any, text string) any {
	if text == "" {
		return v
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if _, has := m["description"]; !has {
		m["description"] = text
	}
	return m
}

// loadComponents converts every schema of the document's components.
func loadComponents(named func(yield func(string, *base.SchemaProxy) bool)) (*schemaSet, error) {
	set := &schemaSet{components: map[string]component{}}
	for name, sp := range named {
		schema, err := convert(sp)
		if err != nil {
			return nil, fmt.Errorf("openapi: components.schemas.%s: %w", name, err)
		}
		set.components[name] = component{schema: schema, refs: refsOf(schema)}
	}
	return set, nil
}
