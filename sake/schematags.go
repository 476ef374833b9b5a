package sake

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// The jsonschema struct tag is read by github.com/invopop/jsonschema,
// which ignores what it does not know: a tag written for another library
// (`jsonschema:"City or location"`, the description alone) would give no
// description and no error. checkSchemaTags refuses such tags before a
// type is reflected, naming the field and showing the form that works.

// schemaTagKeys are the key=value keywords of the jsonschema tag, each
// with the kind of value it takes.
var schemaTagKeys = map[string]tagValue{
	"title": anyValue, "description": anyValue, "type": anyValue, "anchor": anyValue,
	"oneof_required": anyValue, "anyof_required": anyValue,
	"oneof_ref": anyValue, "oneof_type": anyValue, "anyof_ref": anyValue, "anyof_type": anyValue,
	"minLength": countValue, "maxLength": countValue, "pattern": anyValue, "format": anyValue,
	"readOnly": boolValue, "writeOnly": boolValue,
	"default": anyValue, "example": anyValue, "enum": anyValue,
	"multipleOf": numberValue, "minimum": numberValue, "maximum": numberValue,
	"exclusiveMinimum": numberValue, "exclusiveMaximum": numberValue,
	"minItems": countValue, "maxItems": countValue, "uniqueItems": boolValue,
}

// schemaTagWords are the keywords of the jsonschema tag that stand alone.
var schemaTagWords = map[string]bool{"required": true, "nullable": true}

type tagValue int

const (
	anyValue    tagValue = iota
	countValue           // a non-negative integer
	numberValue          // a JSON number
	boolValue            // true or false
)

// maxTagProblems bounds the problems one type's tags report.
const maxTagProblems = 10

// checkSchemaTags checks the jsonschema tags of every field reachable from
// t (through struct fields, pointers, slices, arrays and maps).
func checkSchemaTags(t reflect.Type) error {
	var problems []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || customSchema(t) {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "-" {
				continue
			}
			if tag, ok := f.Tag.Lookup("jsonschema"); ok {
				if msg := checkSchemaTag(tag); msg != "" && len(problems) < maxTagProblems {
					problems = append(problems, fmt.Sprintf("field %s.%s: %s", typeLabel(t), f.Name, msg))
				}
			}
			walk(f.Type)
		}
	}
	walk(t)
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(problems, "; "))
}

// customSchema reports whether t describes its own schema (a JSONSchema
// method), so that its fields' tags are not read.
func customSchema(t reflect.Type) bool {
	_, ok := t.MethodByName("JSONSchema")
	if !ok {
		_, ok = reflect.PointerTo(t).MethodByName("JSONSchema")
	}
	return ok
}

func typeLabel(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

// checkSchemaTag returns what is wrong with one jsonschema tag, or "".
func checkSchemaTag(tag string) string {
	if tag == "-" || strings.HasPrefix(tag, "-,") {
		return ""
	}
	parts := splitSchemaTag(tag)
	keyed := false
	for _, p := range parts {
		if strings.Contains(p, "=") {
			keyed = true
		}
	}
	if !keyed {
		words := true
		for _, p := range parts {
			if p != "" && !schemaTagWords[p] && schemaTagKeys[p] != boolValue {
				words = false
			}
		}
		if !words && !strings.Contains(tag, " ") {
			// One word near a keyword is a misspelt keyword, not prose.
			for _, p := range parts {
				if suggestTagKey(p) != "" {
					words = true
				}
			}
		}
		if !words {
			// The whole tag is prose: the description of another library's
			// convention.
			return fmt.Sprintf(`jsonschema:%q is not a list of keywords; for a description write jsonschema:%q`,
				tag, "description="+strings.ReplaceAll(tag, ",", `\,`))
		}
	}
	for _, p := range parts {
		if p == "" || schemaTagWords[p] {
			continue
		}
		key, val, hasValue := strings.Cut(p, "=")
		kind, known := schemaTagKeys[key]
		switch {
		case !known && !hasValue:
			return fmt.Sprintf("jsonschema:%q: unknown keyword %q%s (the keywords that stand alone are required and nullable; the others are key=value)",
				tag, p, suggestTagKey(key))
		case !known:
			return fmt.Sprintf("jsonschema:%q: unknown key %q%s", tag, key, suggestTagKey(key))
		case !hasValue:
			return fmt.Sprintf("jsonschema:%q: %s needs a value: write %s=%s", tag, key, key, example(kind))
		}
		switch kind {
		case countValue:
			if _, err := strconv.ParseUint(val, 10, 64); err != nil {
				return fmt.Sprintf("jsonschema:%q: %s=%s is not a whole number (for example %s=%s)", tag, key, val, key, example(kind))
			}
		case numberValue:
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				return fmt.Sprintf("jsonschema:%q: %s=%s is not a number (for example %s=%s)", tag, key, val, key, example(kind))
			}
		case boolValue:
			if _, err := strconv.ParseBool(val); err != nil {
				return fmt.Sprintf("jsonschema:%q: %s=%s is not true or false", tag, key, val)
			}
		}
	}
	return ""
}

func example(kind tagValue) string {
	switch kind {
	case countValue, numberValue:
		return "1"
	case boolValue:
		return "true"
	}
	return "..."
}

// suggestTagKey returns ` (did you mean K?)` for a near miss among the
// tag's keywords.
func suggestTagKey(key string) string {
	best, bestD := "", 3
	try := func(k string) {
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	for k := range schemaTagKeys {
		try(k)
	}
	for k := range schemaTagWords {
		try(k)
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// splitSchemaTag splits a jsonschema tag at its commas, a comma after a
// backslash being part of the value (as invopop/jsonschema reads it).
func splitSchemaTag(tag string) []string {
	var out []string
	for _, p := range strings.Split(tag, ",") {
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], `\`) {
			out[n-1] = strings.TrimSuffix(out[n-1], `\`) + "," + p
			continue
		}
		out = append(out, p)
	}
	return out
}
