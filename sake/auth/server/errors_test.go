package server

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformingDescription reports whether s uses only the characters RFC
// 6749 §5.2 allows in error_description: %x20-21 / %x23-5B / %x5D-7E.
func conformingDescription(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}

// Every error description conforms, also when it quotes what the client
// sent or what the application's Registration hook said.
func TestErrorDescriptionsConform(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) {
		c.Registration = func(context.Context, *http.Request, *Client) error {
			return errors.New("policy says \"no\" to caf\u00e9 \\ clients\n")
		}
	})
	register := func(body string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, h.url(pathRegister), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		_, m := h.do(req)
		return m
	}
	var descs []string
	for _, body := range []string{
		`{"redirect_uris":["http://evil.example/cb"]}`,
		`{"redirect_uris":["https://x.example/cb#frag\"\\"]}`,
		`{"redirect_uris":["myapp:/cb"],"application_type":"web"}`,
		`{"redirect_uris":["https://x.example/cb"],"grant_types":["\"quoted\""]}`,
		`{"redirect_uris":["https://x.example/cb"],"scope":"caf\u00e9"}`,
		`{"redirect_uris":["https://x.example/cb"]}`, // the hook's refusal
	} {
		m := register(body)
		d, _ := m["error_description"].(string)
		if m["error"] == nil || d == "" {
			t.Fatalf("%s: %v, want an error with a description", body, m)
		}
		descs = append(descs, d)
	}
	// The token endpoint, with a grant type quoting characters.
	_, m := h.postForm(h.url(pathToken), url.Values{"grant_type": {"x\"y\\z\u00e9"}, "client_id": {publicID}})
	d, _ := m["error_description"].(string)
	descs = append(descs, d)
	// A redirected authorization error.
	_, challenge := pkce()
	p := authParams(challenge)
	p.Set("scope", "notes:read \"weird\"")
	resp, _ := h.get(h.url(pathAuthorize) + "?" + p.Encode())
	loc, _ := url.Parse(resp.Header.Get("Location"))
	descs = append(descs, loc.Query().Get("error_description"))
	for _, d := range descs {
		if d == "" || !conformingDescription(d) {
			t.Errorf("error_description %q has characters RFC 6749 §5.2 does not allow", d)
		}
	}
}

// Every OAuth error is made by oerr, which makes its description conform:
// no oauthError literal elsewhere.
func TestOAuthErrorsAreMadeByOerr(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Name.Name == "oerr" {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok {
					if id, ok := cl.Type.(*ast.Ident); ok && id.Name == "oauthError" {
						t.Errorf("%s: an oauthError made outside oerr", fset.Position(cl.Pos()))
					}
				}
				return true
			})
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text: fine":        "plain text: fine",
		`redirect URI "x" bad`:    "redirect URI 'x' bad",
		"a\\b\tc\u00e9\x7f":       "a?b?c??",
		strings.Repeat("ab", 400): strings.Repeat("ab", 148) + "a...",
	} {
		if got := describe(in); got != want || !conformingDescription(got) || len(got) > maxDescription {
			t.Errorf("describe(%q) = %q, want %q", in, got, want)
		}
	}
}
