package sake

import (
	"log/slog"
	"reflect"
	"sync"
)

// Docs is the documentation of one Go type, as `sake gen` reads it from
// the doc comments of a package: New uses it for descriptions that
// Declare and struct tags leave unset.
type Docs struct {
	// Methods maps a method's name to its doc comment, which becomes the
	// description of the tool, resource, resource template or prompt the
	// method serves.
	Methods map[string]string
	// Fields maps a struct field's Go name to its doc comment, which
	// becomes the description of the field's property in every JSON Schema
	// reflected from the struct (tool arguments and results, prompt
	// arguments).
	Fields map[string]string
}

// RegisterDocs records the documentation of the type T (a pointer type
// stands for the type it points to). The file `sake gen` writes calls it
// from an init function.
//
// Package-level variables are initialized before init functions run, so a
// server built in one (var srv = sake.MustNew(...)) is built before the
// text is registered: such a server (any server built during package
// initialization) is described again when RegisterDocs comes, its
// components built from its value replaced by described ones (and the
// servers it is mounted into follow). A server built later, in main, a
// function or a test, finds the text at once. Outside package
// initialization, call RegisterDocs before the first New of a server
// that uses T, since New reflects each type once and keeps what it found;
// RegisterDocs logs a warning (slog.Default) when it comes too late for
// such a server. Components added with AddTool and its siblings are
// described when they are added.
//
// A description given by Declare (Description), by a
// `jsonschema:"description=..."` tag or by a jsonschema_description tag
// wins over the registered text. Registering T again replaces what was
// registered for it.
func RegisterDocs[T any](docs Docs) {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	late := reflected(t) || forgotten(t)
	registeredDocs.Lock()
	if registeredDocs.m == nil {
		registeredDocs.m = map[reflect.Type]Docs{}
	}
	registeredDocs.m[t] = docs
	registeredDocs.Unlock()
	if !late {
		return
	}
	// A server used t before its text came: describe again those built
	// during package initialization, from fresh reflections.
	redescribeEarly()
	if !reflected(t) {
		slog.Default().Warn("sake: RegisterDocs["+t.String()+"] comes after a server using "+t.String()+
			" was built: that server keeps no descriptions from doc comments for it; register the docs before New (sake gen's file does, from an init function)",
			"type", t.String())
	}
}

// registeredDocs holds what RegisterDocs recorded, by type.
var registeredDocs struct {
	sync.RWMutex
	m map[reflect.Type]Docs
}

// docsOf returns what was registered for t, or for the type t points to.
func docsOf(t reflect.Type) Docs {
	registeredDocs.RLock()
	defer registeredDocs.RUnlock()
	if d, ok := registeredDocs.m[t]; ok {
		return d
	}
	if t.Kind() == reflect.Pointer {
		return registeredDocs.m[t.Elem()]
	}
	return Docs{}
}

// methodDoc returns the registered doc comment of t's method name, or
// of the embedded type that method is promoted from.
func methodDoc(t reflect.Type, name string) string {
	for depth := 0; depth < maxEmbedDepth; depth++ {
		if text, ok := docsOf(t).Methods[name]; ok {
			return text
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return ""
		}
		var from reflect.Type
		for i := 0; i < t.NumField() && from == nil; i++ {
			f := t.Field(i)
			if !f.Anonymous {
				continue
			}
			ft := f.Type
			if _, ok := ft.MethodByName(name); ok {
				from = ft
			} else if _, ok := reflect.PointerTo(ft).MethodByName(name); ok && ft.Kind() != reflect.Pointer {
				from = ft
			}
		}
		if from == nil {
			return ""
		}
		t = from
	}
	return ""
}

// maxEmbedDepth bounds how deep methodDoc looks through embedded types.
const maxEmbedDepth = 8

// fieldDoc is the reflector's LookupComment: the registered doc comment of
// a struct field (field is "" for the type itself, whose comment is not
// used, so that an input schema's root keeps no description).
func fieldDoc(t reflect.Type, field string) string {
	if field == "" {
		return ""
	}
	return docsOf(t).Fields[field]
}

// reflected reports whether New already reflected t, as a server's type
// or as a schema's.
func reflected(t reflect.Type) bool {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if _, ok := blueprints.Load(u); ok {
			return true
		}
		if _, ok := schemaCache.Load(u); ok {
			return true
		}
	}
	return false
}
