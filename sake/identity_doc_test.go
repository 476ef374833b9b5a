package sake_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// go doc sake.Identity shows the alias and its comment only: the comment
// names every field, so that a reader need not follow the alias.
func TestIdentityAliasDocNamesEveryField(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "vocabulary.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.Name == "Identity" {
				doc = g.Doc.Text()
			}
		}
	}
	if doc == "" {
		t.Fatal("sake.Identity has no doc comment")
	}
	typ := reflect.TypeFor[protocol.Identity]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !strings.Contains(doc, name) {
			t.Errorf("the doc comment of sake.Identity does not name the field %s:\n%s", name, doc)
		}
	}
}
