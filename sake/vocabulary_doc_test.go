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

// go doc of an alias shows the alias's comment only, not the fields of the
// type it names: the comment of sake.Identity, which tool authors read,
// names every field of protocol.Identity.
func TestIdentityDocNamesEveryField(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "vocabulary.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, spec := range g.Specs {
			if ts := spec.(*ast.TypeSpec); ts.Name.Name == "Identity" {
				doc = g.Doc.Text()
				if ts.Doc != nil {
					doc = ts.Doc.Text()
				}
			}
		}
	}
	if doc == "" {
		t.Fatal("sake.Identity has no doc comment")
	}
	typ := reflect.TypeFor[protocol.Identity]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !strings.Contains(doc, name) {
			t.Errorf("the doc comment of sake.Identity does not name the field %s", name)
		}
	}
}
