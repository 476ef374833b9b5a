package sake

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Arguments are read once: protocol.DecodeAny turns their JSON into the generic
// form the validator checks, and a filler, planned once per argument type,
// copies that form into the tool's argument value (strings are shared, not
// copied). It follows encoding/json's rules: a field is matched by its
// json name (or Go name), exactly first, then ignoring case; null leaves
// a value alone and clears a pointer, map, slice or interface; a value of
// the wrong type is a *json.UnmarshalTypeError naming the field's path.
// Types whose decoding encoding/json lets the type decide (json.Unmarshaler,
// encoding.TextUnmarshaler, json.Number, []byte, embedded structs, the
// ",string" option, non-string map keys, arrays, non-empty interfaces) are
// decoded by encoding/json from the JSON text instead, as are integers
// beyond 2^53, which the generic form cannot hold exactly.

// filler copies a generic value into a reflect.Value of one type.
type filler struct {
	kind   reflect.Kind
	typ    reflect.Type
	elem   *filler       // pointer, slice and map element
	fields []fieldFiller // struct fields
	byName map[string]int
}

type fieldFiller struct {
	name  string // JSON name
	index int
	fill  *filler
}

var fillers sync.Map // reflect.Type -> *filler, or nil when encoding/json must decode it

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// fillerFor returns the plan for t, or nil when encoding/json must decode
// values of t.
func fillerFor(t reflect.Type) *filler {
	if f, ok := fillers.Load(t); ok {
		f, _ := f.(*filler)
		return f
	}
	f := planFiller(t, map[reflect.Type]*filler{})
	if f == nil {
		fillers.Store(t, (*filler)(nil))
		return nil
	}
	actual, _ := fillers.LoadOrStore(t, f)
	return actual.(*filler)
}

// planFiller plans t; seen holds the types being planned, for recursion.
func planFiller(t reflect.Type, seen map[reflect.Type]*filler) *filler {
	if f, ok := seen[t]; ok {
		return f
	}
	if t == jsonNumberType || t.Implements(jsonUnmarshalerType) || t.Implements(textUnmarshalerType) ||
		reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil
	}
	f := &filler{kind: t.Kind(), typ: t}
	seen[t] = f
	ok := true
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	case reflect.Interface:
		ok = t.NumMethod() == 0
	case reflect.Pointer:
		f.elem = planFiller(t.Elem(), seen)
		ok = f.elem != nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			ok = false // base64 text
			break
		}
		f.elem = planFiller(t.Elem(), seen)
		ok = f.elem != nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key() != reflect.TypeFor[string]() {
			ok = false
			break
		}
		f.elem = planFiller(t.Elem(), seen)
		ok = f.elem != nil
	case reflect.Struct:
		f.byName = map[string]int{}
		for i := 0; i < t.NumField() && ok; i++ {
			sf := t.Field(i)
			if sf.Anonymous {
				ok = false
				break
			}
			if !sf.IsExported() {
				continue
			}
			name := sf.Name
			if tag, has := sf.Tag.Lookup("json"); has {
				tagName, opts, _ := strings.Cut(tag, ",")
				if tag == "-" {
					continue
				}
				if hasOption(opts, "string") {
					ok = false
					break
				}
				if tagName != "" {
					name = tagName
				}
			}
			ff := planFiller(sf.Type, seen)
			if ff == nil {
				ok = false
				break
			}
			if _, dup := f.byName[name]; dup {
				ok = false // encoding/json's dominance rules decide
				break
			}
			f.byName[name] = len(f.fields)
			f.fields = append(f.fields, fieldFiller{name: name, index: i, fill: ff})
		}
	default:
		ok = false
	}
	if !ok {
		delete(seen, t)
		return nil
	}
	return f
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// errInexact says the generic form cannot fill the value exactly; the
// caller decodes the JSON text with encoding/json instead.
type errInexact struct{}

func (errInexact) Error() string { return "inexact" }

// fill copies x into v (settable, of f's type). path is the field path for
// errors. The first type error is kept in *first and filling goes on, as
// encoding/json does.
func (f *filler) fill(v reflect.Value, x any, path []string, first *error) error {
	if x == nil {
		switch f.kind {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	mismatch := func(what string) {
		if *first == nil {
			*first = &json.UnmarshalTypeError{Value: what, Type: f.typ, Field: strings.Join(path, ".")}
		}
	}
	switch f.kind {
	case reflect.Interface:
		v.Set(reflect.ValueOf(x))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(f.typ.Elem()))
		}
		return f.elem.fill(v.Elem(), x, path, first)
	case reflect.String:
		s, ok := x.(string)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := x.(bool)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		v.SetBool(b)
	case reflect.Float32, reflect.Float64:
		n, ok := x.(float64)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		if f.kind == reflect.Float32 && math.Abs(n) > math.MaxFloat32 {
			return errInexact{} // encoding/json's message quotes the literal
		}
		v.SetFloat(n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := x.(float64)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		if math.Abs(n) >= 1<<53 {
			return errInexact{}
		}
		if n != math.Trunc(n) || v.OverflowInt(int64(n)) {
			mismatch("number " + strconv.FormatFloat(n, 'g', -1, 64))
			return nil
		}
		v.SetInt(int64(n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, ok := x.(float64)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		if n >= 1<<53 {
			return errInexact{}
		}
		if n != math.Trunc(n) || n < 0 || v.OverflowUint(uint64(n)) {
			mismatch("number " + strconv.FormatFloat(n, 'g', -1, 64))
			return nil
		}
		v.SetUint(uint64(n))
	case reflect.Slice:
		a, ok := x.([]any)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		s := reflect.MakeSlice(f.typ, len(a), len(a))
		for i, e := range a {
			if err := f.elem.fill(s.Index(i), e, path, first); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		m, ok := x.(map[string]any)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(f.typ, len(m)))
		}
		ev := reflect.New(f.typ.Elem()).Elem()
		for k, e := range m {
			ev.SetZero()
			if err := f.elem.fill(ev, e, path, first); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(f.typ.Key()), ev)
		}
	case reflect.Struct:
		m, ok := x.(map[string]any)
		if !ok {
			mismatch(jsonKind(x))
			return nil
		}
		for k, e := range m {
			i, exact := f.byName[k]
			if !exact {
				i = -1
				for j := range f.fields {
					if strings.EqualFold(f.fields[j].name, k) {
						if _, taken := m[f.fields[j].name]; !taken {
							i = j // an exact key, if present, wins
						}
						break
					}
				}
				if i >= 0 {
					// Two keys that differ only in case name the same field:
					// encoding/json keeps the last in the text, an order
					// the generic form has lost.
					for k2 := range m {
						if k2 != k && strings.EqualFold(k2, f.fields[i].name) {
							return errInexact{}
						}
					}
				}
				if i < 0 {
					continue // unknown members are left to the schema
				}
			}
			ff := &f.fields[i]
			if err := ff.fill.fill(v.Field(ff.index), e, append(path, ff.name), first); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonKind names a generic value's JSON type as encoding/json's
// UnmarshalTypeError does.
func jsonKind(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}
