package sake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"

	"github.com/sakemcp/sake-go/sake/internal/validate"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// typeSchema is a JSON Schema reflected from a Go type, compiled, and
// cached for the life of the process: building a server from a type seen
// before costs a map lookup.
type typeSchema struct {
	raw       json.RawMessage
	validator *validate.Schema
	// props is what prompts and x-mcp-header checks need.
	props    map[string]schemaProp
	order    []string
	required map[string]bool
	// keys holds every property name the schema declares, at any depth,
	// each mapped to itself: decoding arguments shares these strings
	// instead of allocating each key of each request.
	keys map[string]string
}

type schemaProp struct {
	Type        any             `json:"type"`
	Description string          `json:"description"`
	Title       string          `json:"title"`
	Enum        []any           `json:"enum"`
	MCPHeader   *string         `json:"x-mcp-header"`
	Properties  json.RawMessage `json:"properties"`
}

// UnmarshalJSON reads a property's schema; a boolean schema (true for
// anything, as a field of type any reflects to, false for nothing) has
// none of the keywords read here.
func (p *schemaProp) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true", "false":
		*p = schemaProp{}
		return nil
	}
	type plain schemaProp
	return json.Unmarshal(b, (*plain)(p))
}

var schemaCache sync.Map // reflect.Type -> *typeSchema or error

var reflector = &jsonschema.Reflector{
	ExpandedStruct: true,
	DoNotReference: true,
	Anonymous:      true,
	LookupComment:  fieldDoc,
}

// schemaFor returns the cached schema of t, reflecting it the first time.
func schemaFor(t reflect.Type) (*typeSchema, error) {
	if v, ok := schemaCache.Load(t); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*typeSchema), nil
	}
	ts, err := reflectSchema(t)
	if err != nil {
		schemaCache.Store(t, err)
		return nil, err
	}
	actual, _ := schemaCache.LoadOrStore(t, ts)
	return actual.(*typeSchema), nil
}

func reflectSchema(t reflect.Type) (ts *typeSchema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot reflect a JSON Schema from %s: %v", t, r)
		}
	}()
	if err := checkSchemaTags(t); err != nil {
		return nil, err
	}
	var raw []byte
	switch t {
	case mapAnyType, rawMessageType:
		raw = []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`)
	default:
		s := reflector.ReflectFromType(t)
		s.ID = ""
		raw, err = json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("cannot encode the JSON Schema of %s: %w", t, err)
		}
	}
	return compileSchema(raw)
}

// compileSchema prepares a schema given as JSON.
func compileSchema(raw []byte) (*typeSchema, error) {
	v, err := validate.Compile(raw)
	if err != nil {
		return nil, err
	}
	var top struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	ts := &typeSchema{raw: raw, validator: v, props: top.Properties, required: map[string]bool{}}
	for _, r := range top.Required {
		ts.required[r] = true
	}
	// Property order as written in the schema (invopop keeps field order).
	dec := json.NewDecoder(bytes.NewReader(raw))
	ts.order = propertyOrder(dec)
	if generic, err := protocol.DecodeAny(raw); err == nil {
		ts.keys = map[string]string{}
		collectPropertyNames(generic, ts.keys)
	}
	return ts, nil
}

// maxSharedKeys bounds the property names a schema shares with argument
// decoding; a schema with more simply shares the first ones found.
const maxSharedKeys = 1024

// collectPropertyNames adds to keys the member names of every
// "properties" object in the schema x.
func collectPropertyNames(x any, keys map[string]string) {
	switch v := x.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			for name := range props {
				if len(keys) < maxSharedKeys {
					keys[name] = name
				}
			}
		}
		for _, e := range v {
			collectPropertyNames(e, keys)
		}
	case []any:
		for _, e := range v {
			collectPropertyNames(e, keys)
		}
	}
}

// objectRoot reports whether the schema's root says "type": "object".
func (ts *typeSchema) objectRoot() bool {
	var top struct {
		Type any `json:"type"`
	}
	_ = json.Unmarshal(ts.raw, &top)
	return top.Type == "object"
}
