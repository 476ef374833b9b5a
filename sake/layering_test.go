package sake_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// clientSide lists the folders outside the root package allowed to decode
// JSON-RPC, each with why: they read the server's messages as a client
// does, never a message the server handles.
var clientSide = map[string]string{
	"sake/client/":   "the MCP client reads the server's replies, notifications and questions",
	"sake/saketest/": "the test client reads the server's replies, notifications and questions",
}

func isClientSide(rel string) bool {
	for dir := range clientSide {
		if strings.HasPrefix(rel, dir) {
			return true
		}
	}
	return false
}

// rpcMembers are the members only a JSON-RPC envelope has.
var rpcMembers = map[string]bool{"jsonrpc": true, "method": true, "requestId": true}

// TestOnlyTheServerReadsJSONRPC enforces the layering: the root package
// is the only reader of JSON-RPC. A file elsewhere that both decodes JSON
// and names a JSON-RPC envelope member (as a string or a struct tag) is a
// second parser.
func TestOnlyTheServerReadsJSONRPC(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), "."), rel == "bench", rel == "sake/internal":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || filepath.Dir(rel) == "sake" {
			return nil
		}
		seen++
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		decodes, names := false, ""
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					switch {
					case x.Name == "json" && (n.Sel.Name == "Unmarshal" || n.Sel.Name == "NewDecoder"),
						x.Name == "jsonscan":
						decodes = true
					}
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil && rpcMembers[s] {
						names = s
					}
				}
			case *ast.Field:
				if n.Tag != nil {
					tag, _ := strconv.Unquote(n.Tag.Value)
					name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
					if rpcMembers[name] {
						names = name
					}
				}
			}
			return true
		})
		if decodes && names != "" {
			if !isClientSide(rel) {
				t.Errorf("%s decodes JSON-RPC (it decodes JSON and names %q): only the sake package reads messages; ask the server (sake.Message) instead", rel, names)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no file checked")
	}
}
