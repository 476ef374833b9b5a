package main

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
)

// Features returns one line per exported feature of pkg: each constant
// with its type and value, variable with its type, function with its
// signature, and type with its kind, exported fields or interface methods,
// and method set (promoted methods included). Parameter names are left out,
// since changing them breaks no caller. Packages of the module at
// modulePath are written relative to it (sake/protocol), others by their
// full import path.
func Features(pkg *types.Package, modulePath string) []string {
	w := &writer{pkg: pkg, module: modulePath}
	prefix := "pkg " + w.path(pkg) + ", "
	var lines []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		for _, f := range w.object(obj) {
			lines = append(lines, prefix+f)
		}
	}
	sort.Strings(lines)
	return lines
}

// writer spells types as the record writes them.
type writer struct {
	pkg    *types.Package
	module string
}

// path is how a package is named in the record.
func (w *writer) path(p *types.Package) string {
	if rest, ok := strings.CutPrefix(p.Path(), w.module+"/"); ok {
		return rest
	}
	return p.Path()
}

func (w *writer) object(obj types.Object) []string {
	switch obj := obj.(type) {
	case *types.Const:
		return []string{fmt.Sprintf("const %s %s = %s", obj.Name(), w.typ(obj.Type()), obj.Val().ExactString())}
	case *types.Var:
		return []string{fmt.Sprintf("var %s %s", obj.Name(), w.typ(obj.Type()))}
	case *types.Func:
		sig := obj.Type().(*types.Signature)
		return []string{"func " + obj.Name() + w.typeParams(sig.TypeParams()) + w.signature(sig)}
	case *types.TypeName:
		return w.typeName(obj)
	}
	return nil
}

func (w *writer) typeName(obj *types.TypeName) []string {
	if obj.IsAlias() {
		head := "type " + obj.Name()
		if a, ok := obj.Type().(*types.Alias); ok {
			head += w.typeParams(a.TypeParams())
			return []string{head + " = " + w.typ(a.Rhs())}
		}
		return []string{head + " = " + w.typ(obj.Type())}
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return []string{"type " + obj.Name() + " " + w.typ(obj.Type())}
	}
	head := "type " + obj.Name() + w.typeParams(named.TypeParams())
	var lines []string
	switch u := named.Underlying().(type) {
	case *types.Struct:
		lines = append(lines, head+" struct")
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case f.Embedded():
				lines = append(lines, head+" struct, embedded "+w.typ(f.Type()))
			case f.Exported():
				lines = append(lines, head+" struct, "+f.Name()+" "+w.typ(f.Type()))
			}
		}
	case *types.Interface:
		var names []string
		unexported := false
		for i := range u.NumMethods() {
			m := u.Method(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			lines = append(lines, head+" interface, "+m.Name()+w.signature(m.Type().(*types.Signature)))
		}
		for i := range u.NumEmbeddeds() {
			if e := u.EmbeddedType(i); !types.IsInterface(e) {
				lines = append(lines, head+" interface, type "+w.typ(e))
			}
		}
		if unexported {
			names = append(names, "unexported methods")
			lines = append(lines, head+" interface, unexported methods")
		}
		lines = append(lines, head+" interface { "+strings.Join(names, ", ")+" }")
		return lines
	default:
		lines = append(lines, head+" "+w.typ(u))
	}
	return append(lines, w.methods(obj.Name(), named)...)
}

// methods lists the exported methods of T and *T, promoted ones included,
// each with the receiver it needs.
func (w *writer) methods(name string, named *types.Named) []string {
	recv := name
	if tps := named.TypeParams(); tps.Len() > 0 {
		params := make([]string, tps.Len())
		for i := range tps.Len() {
			params[i] = tps.At(i).Obj().Name()
		}
		recv += "[" + strings.Join(params, ", ") + "]"
	}
	var lines []string
	seen := map[string]bool{}
	for _, t := range []types.Type{named, types.NewPointer(named)} {
		r := recv
		if _, ok := t.(*types.Pointer); ok {
			r = "*" + recv
		}
		set := types.NewMethodSet(t)
		for i := range set.Len() {
			m := set.At(i).Obj().(*types.Func)
			if !m.Exported() || seen[m.Name()] {
				continue
			}
			seen[m.Name()] = true
			lines = append(lines, "method ("+r+") "+m.Name()+w.signature(m.Type().(*types.Signature)))
		}
	}
	return lines
}

func (w *writer) typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range tps.Len() {
		tp := tps.At(i)
		parts[i] = tp.Obj().Name() + " " + w.typ(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature spells a signature without its "func" and parameter names:
// (int, ...string) (T, error).
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	b.WriteString("(")
	params := sig.Params()
	for i := range params.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := params.At(i).Type()
		if sig.Variadic() && i == params.Len()-1 {
			if s, ok := t.(*types.Slice); ok {
				b.WriteString("..." + w.typ(s.Elem()))
				continue
			}
		}
		b.WriteString(w.typ(t))
	}
	b.WriteString(")")
	res := sig.Results()
	switch res.Len() {
	case 0:
	case 1:
		b.WriteString(" " + w.typ(res.At(0).Type()))
	default:
		b.WriteString(" (")
		for i := range res.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.typ(res.At(i).Type()))
		}
		b.WriteString(")")
	}
	return b.String()
}

// typ spells a type, naming other packages by their record path.
func (w *writer) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Basic:
		return t.Name()
	case *types.Pointer:
		return "*" + w.typ(t.Elem())
	case *types.Slice:
		return "[]" + w.typ(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), w.typ(t.Elem()))
	case *types.Map:
		return "map[" + w.typ(t.Key()) + "]" + w.typ(t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + w.typ(t.Elem())
		case types.RecvOnly:
			return "<-chan " + w.typ(t.Elem())
		}
		if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
			return "chan (" + w.typ(t.Elem()) + ")"
		}
		return "chan " + w.typ(t.Elem())
	case *types.Signature:
		return "func" + w.signature(t)
	case *types.Named:
		return w.objName(t.Obj()) + w.typeArgs(t.TypeArgs())
	case *types.Alias:
		return w.objName(t.Obj()) + w.typeArgs(t.TypeArgs())
	case *types.TypeParam:
		return t.Obj().Name()
	case *types.Struct:
		if t.NumFields() == 0 {
			return "struct{}"
		}
		fields := make([]string, t.NumFields())
		for i := range t.NumFields() {
			f := t.Field(i)
			if f.Embedded() {
				fields[i] = w.typ(f.Type())
			} else {
				fields[i] = f.Name() + " " + w.typ(f.Type())
			}
		}
		return "struct{ " + strings.Join(fields, "; ") + " }"
	case *types.Interface:
		var parts []string
		for i := range t.NumEmbeddeds() {
			parts = append(parts, w.typ(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			parts = append(parts, m.Name()+w.signature(m.Type().(*types.Signature)))
		}
		if len(parts) == 0 {
			return "interface{}"
		}
		return "interface{ " + strings.Join(parts, "; ") + " }"
	case *types.Union:
		terms := make([]string, t.Len())
		for i := range t.Len() {
			term := t.Term(i)
			terms[i] = w.typ(term.Type())
			if term.Tilde() {
				terms[i] = "~" + terms[i]
			}
		}
		return strings.Join(terms, " | ")
	case *types.Tuple:
		parts := make([]string, t.Len())
		for i := range t.Len() {
			parts[i] = w.typ(t.At(i).Type())
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return t.String()
}

func (w *writer) objName(obj *types.TypeName) string {
	if obj.Pkg() == nil || obj.Pkg() == w.pkg {
		return obj.Name()
	}
	return w.path(obj.Pkg()) + "." + obj.Name()
}

func (w *writer) typeArgs(args *types.TypeList) string {
	if args.Len() == 0 {
		return ""
	}
	parts := make([]string, args.Len())
	for i := range args.Len() {
		parts[i] = w.typ(args.At(i))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
