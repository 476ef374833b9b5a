package sake_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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
	"sake/protocol/": "the shared framing: Peek reads envelopes for the server, the client and the test client",
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

// eachSourceFile parses every non-test Go file of the module outside the
// folders skipDir names (hidden ones are always skipped) and calls fn
// with its path relative to the module and its syntax. It fails the test
// when no file was checked.
func eachSourceFile(t *testing.T, skipDir func(rel string) bool, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
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
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || skipDir(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		seen++
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("no file checked")
	}
}

// TestOnlyTheServerReadsJSONRPC enforces the layering: the root package
// is the only reader of JSON-RPC. A file elsewhere that both decodes JSON
// and names a JSON-RPC envelope member (as a string or a struct tag) is a
// second parser.
func TestOnlyTheServerReadsJSONRPC(t *testing.T) {
	t.Parallel()
	skip := func(rel string) bool { return rel == "bench" || rel == "sake/internal" }
	eachSourceFile(t, skip, func(rel string, _ *token.FileSet, f *ast.File) {
		if filepath.Dir(rel) == "sake" {
			return
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
				t.Errorf("%s decodes JSON-RPC (it decodes JSON and names %q): only the sake package reads messages; ask the server (transport.Message) instead", rel, names)
			}
		}
	})
}

// envelopeMember returns the member that makes an anonymous struct a
// JSON-RPC envelope peek: "jsonrpc" or "method", or "id" beside "result",
// "error" or "params" (an "id" alone is any API's object, such as a user
// record); "" when it is none.
func envelopeMember(st *ast.StructType) string {
	members := map[string]bool{}
	for _, field := range st.Fields.List {
		if field.Tag == nil {
			continue
		}
		tag, _ := strconv.Unquote(field.Tag.Value)
		name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		members[name] = true
	}
	switch {
	case members["jsonrpc"]:
		return "jsonrpc"
	case members["method"]:
		return "method"
	case members["id"] && (members["result"] || members["error"] || members["params"]):
		return "id"
	}
	return ""
}

// TestEnvelopesGoThroughProtocol enforces one framing: outside package
// protocol no Go file spells a JSON-RPC envelope ("jsonrpc":"2.0") or
// peeks at one through an anonymous struct with "id", "jsonrpc" or
// "method" members; they call protocol's Append… functions and Peek.
func TestEnvelopesGoThroughProtocol(t *testing.T) {
	t.Parallel()
	skip := func(rel string) bool { return rel == "bench" || rel == "sake/protocol" }
	eachSourceFile(t, skip, func(rel string, fset *token.FileSet, f *ast.File) {
		if rel == "sake/internal/kittest/pysdk.go" {
			// A test stand-in for another SDK's server: it writes that
			// server's envelopes by hand, as a foreign peer would.
			return
		}
		named := map[*ast.StructType]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					named[st] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil && strings.Contains(s, `"jsonrpc":"2.0"`) {
						t.Errorf("%s:%d spells a JSON-RPC envelope: write it with protocol.AppendRequest, AppendNotification, AppendResult or AppendError", rel, fset.Position(n.Pos()).Line)
					}
				}
			case *ast.StructType:
				if named[n] {
					return true
				}
				if name := envelopeMember(n); name != "" {
					t.Errorf("%s:%d peeks at a JSON-RPC envelope with an anonymous struct (member %q): use protocol.Peek", rel, fset.Position(n.Pos()).Line, name)
				}
			}
			return true
		})
	})
}

// TestClientLinksNoServer keeps the client light: sake/client and what it
// imports (protocol, auth) never import the server package or the schema
// reflector, so a program that only connects to servers links neither.
func TestClientLinksNoServer(t *testing.T) {
	t.Parallel()
	seen := linksNone(t, "sake/client", "the client", modulePath+"sake",
		modulePath+"sake/transport", modulePath+"sake/internal/bridge", // the server's side of a transport
		"github.com/invopop/jsonschema")
	if _, ok := seen[modulePath+"sake/protocol"]; !ok {
		t.Fatal("sake/client does not import sake/protocol: the walk is broken")
	}
}

// TestBackendLinksNoServer keeps sake/backend a leaf beside the protocol:
// the interfaces a backend implements, and what they import, never import
// the server package, so a backend links no server.
func TestBackendLinksNoServer(t *testing.T) {
	t.Parallel()
	seen := linksNone(t, "sake/backend", "sake/backend", modulePath+"sake")
	if _, ok := seen[modulePath+"sake/protocol"]; !ok {
		t.Fatal("sake/backend does not import sake/protocol: the walk is broken")
	}
}

// modulePath is the module's import path, with a trailing slash.
const modulePath = "github.com/sakemcp/sake-go/"

// linksNone walks the non-test imports of the module's package at dir
// (relative to the module), through the module's packages, and fails the
// test, naming the chain, for each forbidden package reached; what names
// the start in the messages. It returns every package seen, each with the
// package that imported it.
func linksNone(t *testing.T, dir, what string, forbidden ...string) map[string]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{}
	for _, pkg := range forbidden {
		banned[pkg] = true
	}
	fset := token.NewFileSet()
	seen := map[string]string{} // package → the package that imported it
	var visit func(pkg, from string)
	visit = func(pkg, from string) {
		if _, ok := seen[pkg]; ok {
			return
		}
		seen[pkg] = from
		if banned[pkg] {
			chain := pkg
			for p := from; p != ""; p = seen[p] {
				chain = p + " → " + chain
			}
			t.Errorf("%s links %s: %s", what, pkg, chain)
			return
		}
		if !strings.HasPrefix(pkg, modulePath) {
			return
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, modulePath)))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				visit(p, pkg)
			}
		}
	}
	visit(modulePath+dir, "")
	return seen
}
