package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Schema is a compiled JSON Schema. It is immutable after [Compile] and safe
// for concurrent use by multiple goroutines.
type Schema struct {
	root *node
}

// typeMask is a set of JSON Schema type names.
type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBoolean
	tObject
	tArray
	tString
	tNumber
	tInteger
)

// typeNames lists the type names in the order used in messages.
var typeNames = [...]struct {
	name   string
	bit    typeMask
	phrase string
}{
	{"string", tString, "a string"},
	{"number", tNumber, "a number"},
	{"integer", tInteger, "an integer"},
	{"boolean", tBoolean, "a boolean"},
	{"object", tObject, "an object"},
	{"array", tArray, "an array"},
	{"null", tNull, "null"},
}

// phrase renders the set for messages: "a string", "a string or null",
// "a string, a number or null".
func (m typeMask) phrase() string {
	if m&tNumber != 0 {
		m &^= tInteger
	}
	var parts []string
	for _, t := range typeNames {
		if m&t.bit != 0 {
			parts = append(parts, t.phrase)
		}
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// node is one compiled schema (object or boolean). Keyword groups that only
// apply to one instance type live behind pointers so that absent groups cost
// a single nil check.
type node struct {
	ptr string // JSON pointer of the schema within the document (compile errors only)

	trivial   bool // no keywords at all: everything is valid
	never     bool // the false schema
	hasUneval bool // unevaluatedProperties or unevaluatedItems present
	typesOnly bool // the only keyword is "type" (for nicer messages)

	types   typeMask
	typeMsg string // "must be a string"

	hasConst bool
	constVal any
	constMsg string

	hasEnum     bool
	enum        []any
	enumStrings map[string]struct{} // set when every enum value is a string and there are many
	enumMsg     string

	num *numRules
	str *strRules
	arr *arrRules
	obj *objRules

	ref    *node // $ref
	dynRef *node // $dynamicRef / $recursiveRef (resolved statically)

	allOf []*node
	anyOf []*node
	oneOf []*node
	not   *node
	ifS   *node
	thenS *node
	elseS *node

	unevalProps *node
	unevalItems *node
}

type numRules struct {
	hasMin, hasMax, hasExMin, hasExMax, hasMult bool

	min, max, exMin, exMax, mult             float64
	minLit, maxLit, exMinLit, exMaxLit, mLit string
}

type strRules struct {
	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	patternMsg     string
	format         func(string) bool
	formatMsg      string
}

type arrRules struct {
	minItems, maxItems       int // -1 when absent
	prefix                   []*node
	items                    *node
	contains                 *node
	minContains, maxContains int // maxContains -1 when absent
	unique                   bool
}

type propRule struct {
	name   string
	schema *node
}

type patternRule struct {
	re     *regexp.Regexp
	schema *node
}

type depRequired struct {
	prop     string
	required []string
	msg      string
}

type depSchema struct {
	prop   string
	schema *node
}

type objRules struct {
	props      []propRule
	propIdx    map[string]*node // only for large "properties"
	required   []string
	additional *node
	patterns   []patternRule
	propNames  *node
	minProps   int // -1 when absent
	maxProps   int // -1 when absent
	depReq     []depRequired
	depSchemas []depSchema
	scanKeys   bool // some keyword needs to look at every member
}

func (o *objRules) lookup(k string) *node {
	if o.propIdx != nil {
		return o.propIdx[k]
	}
	for i := range o.props {
		if o.props[i].name == k {
			return o.props[i].schema
		}
	}
	return nil
}

// Compile parses a JSON Schema document (2020-12) and prepares it for validation.
// It returns an error naming the offending keyword for schemas it cannot use
// (bad regex in "pattern", a "$ref" that is not local, unresolvable local refs).
func Compile(schema []byte) (*Schema, error) {
	doc, err := parseDocument(schema)
	if err != nil {
		return nil, fmt.Errorf("validate: schema is not valid JSON: %w", err)
	}
	c := &compiler{
		nodes:     map[string]*node{},
		resources: map[string]*resource{},
		resByPtr:  map[string]*resource{},
	}
	root := &resource{raw: doc, anchors: map[string]anchor{}}
	if obj, ok := doc.(*object); ok {
		if v, ok := obj.get("$id"); ok {
			if id, ok := v.(string); ok && !strings.HasPrefix(id, "#") {
				abs, err := resolveURI("", id)
				if err != nil {
					return nil, kwErr("", "$id", "invalid URI: %v", err)
				}
				root.id = abs
				c.resources[abs] = root
			}
		}
	}
	c.resByPtr[""] = root
	if err := c.scan(doc, "", root); err != nil {
		return nil, err
	}
	n, err := c.compile(doc, "", root)
	if err != nil {
		return nil, err
	}
	if err := c.checkCycles(); err != nil {
		return nil, err
	}
	return &Schema{root: n}, nil
}

// ---------------------------------------------------------------------------
// Ordered JSON parsing of the schema document.

// object is a JSON object that keeps its members in document order, so that
// messages and violation order follow the schema author's order.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o *object) set(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// parseDocument decodes JSON into *object, []any, string, json.Number, bool
// and nil values.
func parseDocument(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the top-level value")
		}
		return nil, err
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		obj := &object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := kt.(string)
			if !ok {
				return nil, errors.New("object key is not a string")
			}
			val, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			obj.set(key, val)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return obj, nil
	case '[':
		arr := []any{}
		for dec.More() {
			val, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, val)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// plain converts a parsed schema value into the representation used for
// instances (map[string]any, float64), for const and enum comparisons.
func plain(v any) any {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, len(x.keys))
		for i, k := range x.keys {
			m[k] = plain(x.vals[i])
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case json.Number:
		if f, ok := parseNumber(x); ok {
			return f
		}
	}
	return v
}

// render writes a parsed schema value as compact JSON for messages.
func render(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case json.Number:
		b.WriteString(string(x))
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeJSON(b, x.vals[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	default:
		fmt.Fprint(b, x)
	}
}

// ---------------------------------------------------------------------------
// Compiler.

// resource is a schema resource: the document root or a subschema with its
// own "$id". Fragment references resolve relative to the enclosing resource.
type resource struct {
	id      string // absolute base URI without fragment; "" when unknown
	ptr     string // location of the resource root in the document
	raw     any
	anchors map[string]anchor
}

type anchor struct {
	ptr string
	raw any
}

type compiler struct {
	nodes     map[string]*node     // compiled schemas by document pointer
	resources map[string]*resource // by base URI
	resByPtr  map[string]*resource // by document pointer of the resource root
}

func loc(ptr string) string { return "#" + ptr }

func kwErr(ptr, kw, format string, args ...any) error {
	return fmt.Errorf("validate: %q at %s: %s", kw, loc(ptr), fmt.Sprintf(format, args...))
}

// escapeToken escapes one JSON pointer reference token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func resolveURI(base, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if base != "" {
		b, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		r = b.ResolveReference(r)
	}
	r.Fragment = ""
	r.RawFragment = ""
	return r.String(), nil
}

// keyword shapes, for walking subschemas.
const (
	kwSchema      = iota + 1 // value is a schema
	kwSchemaMap              // value is an object of schemas
	kwSchemaArray            // value is an array of schemas
	kwItems                  // schema or (legacy) array of schemas
	kwDeps                   // legacy "dependencies": schemas or string arrays
)

var subschemaKeywords = map[string]int{
	"additionalProperties":  kwSchema,
	"propertyNames":         kwSchema,
	"contains":              kwSchema,
	"not":                   kwSchema,
	"if":                    kwSchema,
	"then":                  kwSchema,
	"else":                  kwSchema,
	"unevaluatedProperties": kwSchema,
	"unevaluatedItems":      kwSchema,
	"additionalItems":       kwSchema,
	"items":                 kwItems,
	"properties":            kwSchemaMap,
	"patternProperties":     kwSchemaMap,
	"$defs":                 kwSchemaMap,
	"definitions":           kwSchemaMap,
	"dependentSchemas":      kwSchemaMap,
	"dependencies":          kwDeps,
	"allOf":                 kwSchemaArray,
	"anyOf":                 kwSchemaArray,
	"oneOf":                 kwSchemaArray,
	"prefixItems":           kwSchemaArray,
}

// scan walks every subschema position to register embedded resources
// ("$id") and anchors before any reference is resolved.
func (c *compiler) scan(v any, ptr string, res *resource) error {
	obj, ok := v.(*object)
	if !ok {
		return nil
	}
	if idv, ok := obj.get("$id"); ok {
		id, ok := idv.(string)
		if !ok {
			return kwErr(ptr, "$id", "must be a string")
		}
		switch {
		case strings.HasPrefix(id, "#"):
			// Legacy (draft-07) plain-name fragment: acts as an anchor.
			if len(id) > 1 {
				if err := c.addAnchor(res, id[1:], ptr, v, "$id"); err != nil {
					return err
				}
			}
		case ptr != "":
			abs, err := resolveURI(res.id, id)
			if err != nil {
				return kwErr(ptr, "$id", "invalid URI: %v", err)
			}
			nr := &resource{id: abs, ptr: ptr, raw: v, anchors: map[string]anchor{}}
			if _, dup := c.resources[abs]; !dup {
				c.resources[abs] = nr
			}
			c.resByPtr[ptr] = nr
			res = nr
		}
	}
	for _, kw := range [...]string{"$anchor", "$dynamicAnchor"} {
		if av, ok := obj.get(kw); ok {
			name, ok := av.(string)
			if !ok || name == "" {
				return kwErr(ptr, kw, "must be a non-empty string")
			}
			if err := c.addAnchor(res, name, ptr, v, kw); err != nil {
				return err
			}
		}
	}
	for i, key := range obj.keys {
		val := obj.vals[i]
		base := ptr + "/" + escapeToken(key)
		switch subschemaKeywords[key] {
		case kwSchema:
			if err := c.scan(val, base, res); err != nil {
				return err
			}
		case kwSchemaMap, kwDeps:
			if m, ok := val.(*object); ok {
				for j, k := range m.keys {
					if err := c.scan(m.vals[j], base+"/"+escapeToken(k), res); err != nil {
						return err
					}
				}
			}
		case kwSchemaArray, kwItems:
			if arr, ok := val.([]any); ok {
				for j, e := range arr {
					if err := c.scan(e, base+"/"+strconv.Itoa(j), res); err != nil {
						return err
					}
				}
			} else if subschemaKeywords[key] == kwItems {
				if err := c.scan(val, base, res); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *compiler) addAnchor(res *resource, name, ptr string, raw any, kw string) error {
	if prev, dup := res.anchors[name]; dup && prev.ptr != ptr {
		return kwErr(ptr, kw, "anchor %q is already defined at %s", name, loc(prev.ptr))
	}
	res.anchors[name] = anchor{ptr: ptr, raw: raw}
	return nil
}

// compile returns the node for the schema at ptr, compiling it on first use.
// Nodes are registered before their children are compiled, so recursive
// references simply point back at the (possibly still incomplete) node.
func (c *compiler) compile(v any, ptr string, res *resource) (*node, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	n := &node{ptr: ptr}
	c.nodes[ptr] = n
	switch s := v.(type) {
	case bool:
		n.never = !s
		n.trivial = s
		return n, nil
	case *object:
		if r, ok := c.resByPtr[ptr]; ok {
			res = r
		}
		if err := c.compileObject(n, s, ptr, res); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, fmt.Errorf("validate: schema at %s must be an object or a boolean", loc(ptr))
}

// resolveRef resolves a "$ref" value against the resource containing it.
func (c *compiler) resolveRef(ref, ptr, kw string, res *resource) (*node, error) {
	base, frag, _ := strings.Cut(ref, "#")
	target := res
	if base != "" {
		// An absolute URI, or one relative to the enclosing resource,
		// naming a resource ($id) inside this document.
		abs, err := resolveURI(res.id, base)
		if err != nil {
			return nil, kwErr(ptr, kw, "invalid reference %q: %v", ref, err)
		}
		r, ok := c.resources[abs]
		if !ok {
			return nil, kwErr(ptr, kw, "%q is not a local reference (only references within the schema document are supported)", ref)
		}
		target = r
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, kwErr(ptr, kw, "invalid reference %q: %v", ref, err)
	}
	switch {
	case frag == "":
		return c.compile(target.raw, target.ptr, target)
	case frag[0] == '/':
		raw, abs, ok := walkPointer(target.raw, target.ptr, frag)
		if !ok {
			return nil, kwErr(ptr, kw, "cannot resolve %q: no such location in the schema", ref)
		}
		return c.compile(raw, abs, target)
	default:
		a, ok := target.anchors[frag]
		if !ok {
			return nil, kwErr(ptr, kw, "cannot resolve %q: no such anchor in the schema", ref)
		}
		return c.compile(a.raw, a.ptr, target)
	}
}

// walkPointer follows a JSON pointer (already percent-decoded) from raw and
// returns the value together with its canonical document pointer.
func walkPointer(raw any, base, pointer string) (any, string, bool) {
	cur, abs := raw, base
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case *object:
			v, ok := x.get(tok)
			if !ok {
				return nil, "", false
			}
			cur = v
			abs += "/" + escapeToken(tok)
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				return nil, "", false
			}
			cur = x[i]
			abs += "/" + tok
		default:
			return nil, "", false
		}
	}
	return cur, abs, true
}

// compileObject compiles the keywords of one schema object.
func (c *compiler) compileObject(n *node, obj *object, ptr string, res *resource) error {
	childPtr := func(kw string) string { return ptr + "/" + escapeToken(kw) }
	sub := func(kw string) (*node, error) {
		v, ok := obj.get(kw)
		if !ok {
			return nil, nil
		}
		return c.compile(v, childPtr(kw), res)
	}
	subArray := func(kw string, nonEmpty bool) ([]*node, error) {
		v, ok := obj.get(kw)
		if !ok {
			return nil, nil
		}
		arr, ok := v.([]any)
		if !ok || (nonEmpty && len(arr) == 0) {
			if nonEmpty {
				return nil, kwErr(ptr, kw, "must be a non-empty array of schemas")
			}
			return nil, kwErr(ptr, kw, "must be an array of schemas")
		}
		out := make([]*node, len(arr))
		for i, e := range arr {
			s, err := c.compile(e, childPtr(kw)+"/"+strconv.Itoa(i), res)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	subMap := func(kw string) (*object, []*node, error) {
		v, ok := obj.get(kw)
		if !ok {
			return nil, nil, nil
		}
		m, ok := v.(*object)
		if !ok {
			return nil, nil, kwErr(ptr, kw, "must be an object of schemas")
		}
		out := make([]*node, len(m.keys))
		for i, k := range m.keys {
			s, err := c.compile(m.vals[i], childPtr(kw)+"/"+escapeToken(k), res)
			if err != nil {
				return nil, nil, err
			}
			out[i] = s
		}
		return m, out, nil
	}
	var err error

	// Definitions are compiled eagerly so that mistakes in them surface at
	// Compile time.
	for _, kw := range [...]string{"$defs", "definitions"} {
		if _, _, err := subMap(kw); err != nil {
			return err
		}
	}

	// References.
	if v, ok := obj.get("$ref"); ok {
		s, ok := v.(string)
		if !ok {
			return kwErr(ptr, "$ref", "must be a string")
		}
		if n.ref, err = c.resolveRef(s, ptr, "$ref", res); err != nil {
			return err
		}
	}
	for _, kw := range [...]string{"$dynamicRef", "$recursiveRef"} {
		if v, ok := obj.get(kw); ok {
			s, ok := v.(string)
			if !ok {
				return kwErr(ptr, kw, "must be a string")
			}
			if n.dynRef, err = c.resolveRef(s, ptr, kw, res); err != nil {
				return err
			}
		}
	}

	// Generic keywords.
	if v, ok := obj.get("type"); ok {
		if n.types, err = parseTypes(v, ptr); err != nil {
			return err
		}
		n.typeMsg = "must be " + n.types.phrase()
	}
	if v, ok := obj.get("const"); ok {
		n.hasConst = true
		n.constVal = plain(v)
		n.constMsg = "must be " + truncate(render(v))
	}
	if v, ok := obj.get("enum"); ok {
		arr, ok := v.([]any)
		if !ok {
			return kwErr(ptr, "enum", "must be an array")
		}
		n.hasEnum = true
		n.enum = make([]any, len(arr))
		allStrings := true
		parts := make([]string, len(arr))
		for i, e := range arr {
			n.enum[i] = plain(e)
			parts[i] = render(e)
			if _, ok := e.(string); !ok {
				allStrings = false
			}
		}
		if allStrings && len(arr) > 8 {
			n.enumStrings = make(map[string]struct{}, len(arr))
			for _, e := range arr {
				n.enumStrings[e.(string)] = struct{}{}
			}
		}
		switch len(parts) {
		case 0:
			n.enumMsg = "must not be present (enum is empty)"
		case 1:
			n.enumMsg = "must be " + truncate(parts[0])
		default:
			n.enumMsg = "must be one of " + truncate(strings.Join(parts, ", "))
		}
	}

	if err := c.compileNumber(n, obj, ptr); err != nil {
		return err
	}
	if err := c.compileString(n, obj, ptr); err != nil {
		return err
	}

	// Arrays.
	{
		r := &arrRules{minItems: -1, maxItems: -1, minContains: 1, maxContains: -1}
		used := false
		if r.minItems, used, err = intKeyword(obj, "minItems", ptr, used); err != nil {
			return err
		}
		if r.maxItems, used, err = intKeyword(obj, "maxItems", ptr, used); err != nil {
			return err
		}
		if r.prefix, err = subArray("prefixItems", false); err != nil {
			return err
		}
		if v, ok := obj.get("items"); ok {
			if _, isArr := v.([]any); isArr {
				// Legacy (draft-07) tuple form: items is prefixItems and
				// additionalItems applies to the rest.
				if r.prefix == nil {
					if r.prefix, err = subArray("items", false); err != nil {
						return err
					}
					if r.items, err = sub("additionalItems"); err != nil {
						return err
					}
				}
			} else if r.items, err = sub("items"); err != nil {
				return err
			}
		}
		if r.contains, err = sub("contains"); err != nil {
			return err
		}
		if r.contains != nil {
			var mc, xc int
			var had bool
			if mc, had, err = intKeyword(obj, "minContains", ptr, false); err != nil {
				return err
			}
			if had {
				r.minContains = mc
			}
			if xc, _, err = intKeyword(obj, "maxContains", ptr, false); err != nil {
				return err
			}
			r.maxContains = xc
		}
		if v, ok := obj.get("uniqueItems"); ok {
			b, ok := v.(bool)
			if !ok {
				return kwErr(ptr, "uniqueItems", "must be a boolean")
			}
			r.unique = b
		}
		if used || r.prefix != nil || r.items != nil || r.contains != nil || r.unique {
			n.arr = r
		}
	}

	// Objects.
	{
		r := &objRules{minProps: -1, maxProps: -1}
		used := false
		if r.minProps, used, err = intKeyword(obj, "minProperties", ptr, used); err != nil {
			return err
		}
		if r.maxProps, used, err = intKeyword(obj, "maxProperties", ptr, used); err != nil {
			return err
		}
		m, schemas, err := subMap("properties")
		if err != nil {
			return err
		}
		if m != nil {
			r.props = make([]propRule, len(m.keys))
			for i, k := range m.keys {
				r.props[i] = propRule{name: k, schema: schemas[i]}
			}
			if len(r.props) > 8 {
				r.propIdx = make(map[string]*node, len(r.props))
				for _, p := range r.props {
					r.propIdx[p.name] = p.schema
				}
			}
		}
		if m, schemas, err = subMap("patternProperties"); err != nil {
			return err
		}
		if m != nil {
			for i, k := range m.keys {
				re, err := regexp.Compile(k)
				if err != nil {
					return kwErr(ptr, "patternProperties", "invalid regular expression %q: %v", k, err)
				}
				r.patterns = append(r.patterns, patternRule{re: re, schema: schemas[i]})
			}
		}
		if r.additional, err = sub("additionalProperties"); err != nil {
			return err
		}
		if r.propNames, err = sub("propertyNames"); err != nil {
			return err
		}
		if v, ok := obj.get("required"); ok {
			if r.required, err = stringArray(v); err != nil {
				return kwErr(ptr, "required", "%v", err)
			}
		}
		if v, ok := obj.get("dependentRequired"); ok {
			dm, ok := v.(*object)
			if !ok {
				return kwErr(ptr, "dependentRequired", "must be an object")
			}
			for i, k := range dm.keys {
				req, err := stringArray(dm.vals[i])
				if err != nil {
					return kwErr(ptr, "dependentRequired", "%q: %v", k, err)
				}
				r.depReq = append(r.depReq, depRequired{prop: k, required: req})
			}
		}
		if m, schemas, err = subMap("dependentSchemas"); err != nil {
			return err
		}
		if m != nil {
			for i, k := range m.keys {
				r.depSchemas = append(r.depSchemas, depSchema{prop: k, schema: schemas[i]})
			}
		}
		if v, ok := obj.get("dependencies"); ok { // legacy (draft-07)
			dm, ok := v.(*object)
			if !ok {
				return kwErr(ptr, "dependencies", "must be an object")
			}
			for i, k := range dm.keys {
				if arr, ok := dm.vals[i].([]any); ok {
					req, err := stringArray(arr)
					if err != nil {
						return kwErr(ptr, "dependencies", "%q: %v", k, err)
					}
					r.depReq = append(r.depReq, depRequired{prop: k, required: req})
					continue
				}
				s, err := c.compile(dm.vals[i], childPtr("dependencies")+"/"+escapeToken(k), res)
				if err != nil {
					return err
				}
				r.depSchemas = append(r.depSchemas, depSchema{prop: k, schema: s})
			}
		}
		for i := range r.depReq {
			r.depReq[i].msg = "is required when " + strconv.Quote(r.depReq[i].prop) + " is present"
		}
		r.scanKeys = r.additional != nil || r.patterns != nil || r.propNames != nil
		if used || r.props != nil || r.required != nil || r.scanKeys || r.depReq != nil || r.depSchemas != nil {
			n.obj = r
		}
	}

	// Applicators.
	if n.allOf, err = subArray("allOf", true); err != nil {
		return err
	}
	if n.anyOf, err = subArray("anyOf", true); err != nil {
		return err
	}
	if n.oneOf, err = subArray("oneOf", true); err != nil {
		return err
	}
	if n.not, err = sub("not"); err != nil {
		return err
	}
	if _, ok := obj.get("if"); ok {
		if n.ifS, err = sub("if"); err != nil {
			return err
		}
		if n.thenS, err = sub("then"); err != nil {
			return err
		}
		if n.elseS, err = sub("else"); err != nil {
			return err
		}
	}
	if n.unevalProps, err = sub("unevaluatedProperties"); err != nil {
		return err
	}
	if n.unevalItems, err = sub("unevaluatedItems"); err != nil {
		return err
	}
	n.hasUneval = n.unevalProps != nil || n.unevalItems != nil

	others := n.hasConst || n.hasEnum || n.num != nil || n.str != nil || n.arr != nil || n.obj != nil ||
		n.ref != nil || n.dynRef != nil || n.allOf != nil || n.anyOf != nil || n.oneOf != nil ||
		n.not != nil || n.ifS != nil || n.hasUneval
	n.typesOnly = n.types != 0 && !others
	n.trivial = n.types == 0 && !others
	return nil
}

func (c *compiler) compileNumber(n *node, obj *object, ptr string) error {
	r := &numRules{}
	var err error
	if r.min, r.minLit, r.hasMin, err = numberKeyword(obj, "minimum", ptr); err != nil {
		return err
	}
	if r.max, r.maxLit, r.hasMax, err = numberKeyword(obj, "maximum", ptr); err != nil {
		return err
	}
	// exclusiveMinimum/exclusiveMaximum: numbers (2020-12) or, for
	// compatibility with draft-04 and OpenAPI 3.0, booleans modifying
	// minimum/maximum.
	if v, ok := obj.get("exclusiveMinimum"); ok {
		if b, isBool := v.(bool); isBool {
			if b && r.hasMin {
				r.hasMin, r.hasExMin, r.exMin, r.exMinLit = false, true, r.min, r.minLit
			}
		} else if r.exMin, r.exMinLit, r.hasExMin, err = numberKeyword(obj, "exclusiveMinimum", ptr); err != nil {
			return err
		}
	}
	if v, ok := obj.get("exclusiveMaximum"); ok {
		if b, isBool := v.(bool); isBool {
			if b && r.hasMax {
				r.hasMax, r.hasExMax, r.exMax, r.exMaxLit = false, true, r.max, r.maxLit
			}
		} else if r.exMax, r.exMaxLit, r.hasExMax, err = numberKeyword(obj, "exclusiveMaximum", ptr); err != nil {
			return err
		}
	}
	if r.mult, r.mLit, r.hasMult, err = numberKeyword(obj, "multipleOf", ptr); err != nil {
		return err
	}
	if r.hasMult && !(r.mult > 0) {
		return kwErr(ptr, "multipleOf", "must be greater than 0")
	}
	if r.hasMin || r.hasMax || r.hasExMin || r.hasExMax || r.hasMult {
		n.num = r
	}
	return nil
}

func (c *compiler) compileString(n *node, obj *object, ptr string) error {
	r := &strRules{}
	used := false
	var err error
	if r.minLen, used, err = intKeyword(obj, "minLength", ptr, used); err != nil {
		return err
	}
	if r.maxLen, used, err = intKeyword(obj, "maxLength", ptr, used); err != nil {
		return err
	}
	if v, ok := obj.get("pattern"); ok {
		s, ok := v.(string)
		if !ok {
			return kwErr(ptr, "pattern", "must be a string")
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return kwErr(ptr, "pattern", "invalid regular expression %q: %v", s, err)
		}
		r.pattern = re
		r.patternMsg = "must match pattern " + s
		used = true
	}
	if v, ok := obj.get("format"); ok {
		s, ok := v.(string)
		if !ok {
			return kwErr(ptr, "format", "must be a string")
		}
		if f, ok := formats[s]; ok {
			r.format = f.check
			r.formatMsg = f.msg
			used = true
		}
	}
	if used {
		n.str = r
	}
	return nil
}

func parseTypes(v any, ptr string) (typeMask, error) {
	one := func(s string) (typeMask, error) {
		for _, t := range typeNames {
			if t.name == s {
				return t.bit, nil
			}
		}
		return 0, kwErr(ptr, "type", "unknown type %q", s)
	}
	switch x := v.(type) {
	case string:
		return one(x)
	case []any:
		if len(x) == 0 {
			return 0, kwErr(ptr, "type", "must not be an empty array")
		}
		var m typeMask
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return 0, kwErr(ptr, "type", "must be a string or an array of strings")
			}
			b, err := one(s)
			if err != nil {
				return 0, err
			}
			m |= b
		}
		return m, nil
	}
	return 0, kwErr(ptr, "type", "must be a string or an array of strings")
}

// numberKeyword reads a numeric keyword, returning its value and its literal
// text for messages.
func numberKeyword(obj *object, kw, ptr string) (float64, string, bool, error) {
	v, ok := obj.get(kw)
	if !ok {
		return 0, "", false, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, "", false, kwErr(ptr, kw, "must be a number")
	}
	f, ok := parseNumber(num)
	if !ok {
		return 0, "", false, kwErr(ptr, kw, "must be a number")
	}
	return f, string(num), true, nil
}

// intKeyword reads a non-negative integer keyword; it returns -1 when the
// keyword is absent. used is or-ed with presence.
func intKeyword(obj *object, kw, ptr string, used bool) (int, bool, error) {
	v, ok := obj.get(kw)
	if !ok {
		return -1, used, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return -1, used, kwErr(ptr, kw, "must be a non-negative integer")
	}
	f, ok := parseNumber(num)
	if !ok || f < 0 || f != math.Trunc(f) {
		return -1, used, kwErr(ptr, kw, "must be a non-negative integer")
	}
	if f > math.MaxInt32 {
		f = math.MaxInt32
	}
	return int(f), true, nil
}

func stringArray(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, errors.New("must be an array of strings")
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, errors.New("must be an array of strings")
		}
		out[i] = s
	}
	return out, nil
}

// truncate shortens long renderings of enum/const values in messages.
func truncate(s string) string {
	const limit = 200
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// checkCycles rejects schemas in which a schema applies itself to the same
// instance location without descending into it ({"$ref": "#"} at the root,
// two definitions referring to each other through allOf, ...): validating
// them would never terminate.
func (c *compiler) checkCycles() error {
	ptrs := make([]string, 0, len(c.nodes))
	for p := range c.nodes {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	const (
		white = iota
		grey
		black
	)
	color := make(map[*node]int, len(c.nodes))
	var visit func(n *node) error
	visit = func(n *node) error {
		color[n] = grey
		for _, m := range n.inPlace() {
			switch color[m] {
			case grey:
				return fmt.Errorf("validate: %q at %s: schema applies itself to the same value through %s without descending into it (infinite recursion)", "$ref", loc(n.ptr), loc(m.ptr))
			case white:
				if err := visit(m); err != nil {
					return err
				}
			}
		}
		color[n] = black
		return nil
	}
	for _, p := range ptrs {
		if n := c.nodes[p]; color[n] == white {
			if err := visit(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// inPlace lists the subschemas applied to the same instance location.
func (n *node) inPlace() []*node {
	var out []*node
	add := func(m *node) {
		if m != nil {
			out = append(out, m)
		}
	}
	add(n.ref)
	add(n.dynRef)
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	add(n.not)
	add(n.ifS)
	add(n.thenS)
	add(n.elseS)
	if n.obj != nil {
		for _, d := range n.obj.depSchemas {
			add(d.schema)
		}
	}
	return out
}
