package uritemplate_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/internal/uritemplate"
)

// rfcVars are the example variables of RFC 6570 section 1.2 (levels 1-4).
var rfcVars = map[string]any{
	"var":   "value",
	"hello": "Hello World!",
	"path":  "/foo/bar",
	"list":  []string{"red", "green", "blue"},
	"keys":  map[string]string{"semi": ";", "dot": ".", "comma": ","},
	"empty": "",
	"x":     "1024",
	"y":     "768",
}

func TestExpandRFC6570Examples(t *testing.T) {
	t.Parallel()
	// The RFC 6570 section 1.2 table. The RFC lists the members of "keys" in
	// insertion order (semi, dot, comma); Go maps have no order, so Expand
	// uses sorted key order (comma, dot, semi) and the expectations below are
	// rewritten accordingly.
	tests := []struct {
		template, want string
	}{
		// Level 1
		{"{var}", "value"},
		{"{hello}", "Hello%20World%21"},
		// Level 2
		{"{+var}", "value"},
		{"{+hello}", "Hello%20World!"},
		{"{+path}/here", "/foo/bar/here"},
		{"here?ref={+path}", "here?ref=/foo/bar"},
		{"X{#var}", "X#value"},
		{"X{#hello}", "X#Hello%20World!"},
		// Level 3
		{"map?{x,y}", "map?1024,768"},
		{"{x,hello,y}", "1024,Hello%20World%21,768"},
		{"{+x,hello,y}", "1024,Hello%20World!,768"},
		{"{+path,x}/here", "/foo/bar,1024/here"},
		{"{#x,hello,y}", "#1024,Hello%20World!,768"},
		{"{#path,x}/here", "#/foo/bar,1024/here"},
		{"X{.var}", "X.value"},
		{"X{.x,y}", "X.1024.768"},
		{"{/var}", "/value"},
		{"{/var,x}/here", "/value/1024/here"},
		{"{;x,y}", ";x=1024;y=768"},
		{"{;x,y,empty}", ";x=1024;y=768;empty"},
		{"{?x,y}", "?x=1024&y=768"},
		{"{?x,y,empty}", "?x=1024&y=768&empty="},
		{"?fixed=yes{&x}", "?fixed=yes&x=1024"},
		{"{&x,y,empty}", "&x=1024&y=768&empty="},
		// Level 4
		{"{var:3}", "val"},
		{"{var:30}", "value"},
		{"{list}", "red,green,blue"},
		{"{list*}", "red,green,blue"},
		{"{keys}", "comma,%2C,dot,.,semi,%3B"},
		{"{keys*}", "comma=%2C,dot=.,semi=%3B"},
		{"{+path:6}/here", "/foo/b/here"},
		{"{+list}", "red,green,blue"},
		{"{+list*}", "red,green,blue"},
		{"{+keys}", "comma,,,dot,.,semi,;"},
		{"{+keys*}", "comma=,,dot=.,semi=;"},
		{"{#path:6}/here", "#/foo/b/here"},
		{"{#list}", "#red,green,blue"},
		{"{#list*}", "#red,green,blue"},
		{"{#keys}", "#comma,,,dot,.,semi,;"},
		{"{#keys*}", "#comma=,,dot=.,semi=;"},
		{"X{.var:3}", "X.val"},
		{"X{.list}", "X.red,green,blue"},
		{"X{.list*}", "X.red.green.blue"},
		{"X{.keys}", "X.comma,%2C,dot,.,semi,%3B"},
		{"X{.keys*}", "X.comma=%2C.dot=..semi=%3B"},
		{"{/var:1,var}", "/v/value"},
		{"{/list}", "/red,green,blue"},
		{"{/list*}", "/red/green/blue"},
		{"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
		{"{/keys}", "/comma,%2C,dot,.,semi,%3B"},
		{"{/keys*}", "/comma=%2C/dot=./semi=%3B"},
		{"{;hello:5}", ";hello=Hello"},
		{"{;list}", ";list=red,green,blue"},
		{"{;list*}", ";list=red;list=green;list=blue"},
		{"{;keys}", ";keys=comma,%2C,dot,.,semi,%3B"},
		{"{;keys*}", ";comma=%2C;dot=.;semi=%3B"},
		{"{?var:3}", "?var=val"},
		{"{?list}", "?list=red,green,blue"},
		{"{?list*}", "?list=red&list=green&list=blue"},
		{"{?keys}", "?keys=comma,%2C,dot,.,semi,%3B"},
		{"{?keys*}", "?comma=%2C&dot=.&semi=%3B"},
		{"{&var:3}", "&var=val"},
		{"{&list}", "&list=red,green,blue"},
		{"{&list*}", "&list=red&list=green&list=blue"},
		{"{&keys}", "&keys=comma,%2C,dot,.,semi,%3B"},
		{"{&keys*}", "&comma=%2C&dot=.&semi=%3B"},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			tmpl, err := uritemplate.Parse(tt.template)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := tmpl.Expand(rfcVars)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if got != tt.want {
				t.Errorf("Expand = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpandUndefinedAndEdgeCases(t *testing.T) {
	t.Parallel()
	vars := map[string]any{
		"var":      "value",
		"undef":    nil,
		"emptyl":   []string{},
		"emptym":   map[string]string{},
		"empty":    "",
		"unicode":  "caf\u00e9",
		"pct":      "50%25 off %zz",
		"withitem": []string{"a", ""},
		"emptyval": map[string]string{"k": ""},
	}
	tests := []struct {
		template, want string
	}{
		{"{undef}", ""},
		{"{?undef,emptyl,emptym}", ""},
		{"{/undef,var}", "/value"},
		{"{?undef,var}", "?var=value"},
		{"x{.emptyl}y", "xy"},
		{"{missing}", ""},
		{"{.empty}", "."},
		{"{/empty}", "/"},
		{"{;empty}", ";empty"},
		{"{?empty}", "?empty="},
		{"{empty}", ""},
		{"{unicode}", "caf%C3%A9"},
		{"{unicode:3}", "caf"},
		{"{unicode:4}", "caf%C3%A9"},
		{"{pct}", "50%2525%20off%20%25zz"},
		{"{+pct}", "50%25%20off%20%25zz"},
		{"{+pct:3}", "50%25"},
		{"{;withitem*}", ";withitem=a;withitem"},
		{"{?withitem*}", "?withitem=a&withitem="},
		{"{;emptyval*}", ";k"},
		{"{?emptyval*}", "?k="},
		{"{emptyval*}", "k="},
		{"literal only", "literal%20only"},
		{"a<b>{var}", "a%3Cb%3E" + "value"},
		{"100%25/{var}", "100%25/value"},
		{"{var}{var}", "valuevalue"},
		{"{?var}{&undef}", "?var=value"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			got, err := uritemplate.MustParse(tt.template).Expand(vars)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if got != tt.want {
				t.Errorf("Expand = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpandErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template string
		vars     map[string]any
		wantErr  string
	}{
		{"{x}", map[string]any{"x": 42}, "unsupported value type int"},
		{"{x}", map[string]any{"x": []any{"a"}}, "unsupported value type []interface {}"},
		{"{x:2}", map[string]any{"x": []string{"a"}}, "prefix modifier :2 cannot be applied to a list"},
		{"{x:2}", map[string]any{"x": map[string]string{"a": "b"}}, "cannot be applied to a map"},
	}
	for _, tt := range tests {
		t.Run(tt.template+"/"+tt.wantErr, func(t *testing.T) {
			t.Parallel()
			_, err := uritemplate.MustParse(tt.template).Expand(tt.vars)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Expand error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template string
		offset   int
		wantErr  string
	}{
		{"{foo", 0, "unclosed expression"},
		{"abc{foo", 3, "unclosed expression"},
		{"{", 0, "unclosed expression"},
		{"foo}", 3, "unmatched '}'"},
		{"{a}}", 3, "unmatched '}'"},
		{"{a{b}}", 2, "unexpected '{'"},
		{"{}", 0, "empty expression"},
		{"x{}y", 1, "empty expression"},
		{"{+}", 2, "missing variable name after operator '+'"},
		{"{?}", 2, "missing variable name"},
		{"{a-b}", 2, "invalid character '-'"},
		{"{a b}", 2, "invalid character ' '"},
		{"{a,}", 3, "empty variable name"},
		{"{,a}", 1, "empty variable name"},
		{"{a,,b}", 3, "empty variable name"},
		{"{=a}", 1, "unknown operator '='"},
		{"{!a}", 1, "unknown operator '!'"},
		{"{@a}", 1, "unknown operator '@'"},
		{"{|a}", 1, "unknown operator '|'"},
		{"{-a}", 1, "unknown operator '-'"},
		{"{~a}", 1, "unknown operator '~'"},
		{"{ a}", 1, "invalid character ' '"},
		{"{\u00e9}", 1, "invalid character 'é'"},
		{"{.a.}", 3, "cannot end with '.'"},
		{"{a..b}", 3, "'.' in a variable name"},
		{"{+.a}", 2, "'.' in a variable name"},
		{"{a%2}", 2, "invalid percent-encoding"},
		{"{a%zz}", 2, "invalid percent-encoding"},
		{"{a:}", 3, "needs a length"},
		{"{a:0}", 3, "out of range"},
		{"{a:01}", 3, "out of range"},
		{"{a:10000}", 3, "out of range"},
		{"{a:3*}", 4, "both a prefix and an explode"},
		{"{a*:3}", 3, "both an explode and a prefix"},
		{"{a**}", 3, "invalid character '*' after variable"},
		{"{a:x}", 3, "needs a length"},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			tmpl, err := uritemplate.Parse(tt.template)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.template, tmpl)
			}
			msg := err.Error()
			if want := fmt.Sprintf("at offset %d:", tt.offset); !strings.Contains(msg, want) {
				t.Errorf("error %q does not contain %q", msg, want)
			}
			if !strings.Contains(msg, tt.wantErr) {
				t.Errorf("error %q does not contain %q", msg, tt.wantErr)
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template string
		vars     []string
	}{
		{"", nil},
		{"plain", nil},
		{"file:///{path}", []string{"path"}},
		{"users://{user}/posts{?limit,offset}", []string{"user", "limit", "offset"}},
		{"{a.b_c,A9,%41b}", []string{"a.b_c", "A9", "%41b"}},
		{"{x}{+x}{#y:3}{x*}", []string{"x", "y"}},
		{"{a:9999}{b*}", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			tmpl, err := uritemplate.Parse(tt.template)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := tmpl.String(); got != tt.template {
				t.Errorf("String() = %q, want %q", got, tt.template)
			}
			got := tmpl.Vars()
			if strings.Join(got, "|") != strings.Join(tt.vars, "|") {
				t.Errorf("Vars() = %q, want %q", got, tt.vars)
			}
			if len(got) > 0 {
				got[0] = "mutated"
				if tmpl.Vars()[0] == "mutated" {
					t.Error("Vars() returned the internal slice")
				}
			}
		})
	}
}

func TestMustParsePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("MustParse did not panic")
		}
		if err, ok := r.(error); !ok || !strings.Contains(err.Error(), "unclosed") {
			t.Fatalf("panic value = %v, want the parse error", r)
		}
	}()
	uritemplate.MustParse("{oops")
}

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template, uri string
		want          map[string]string // nil means no match
	}{
		// Simple expressions never span '/'.
		{"test://template/{id}/data", "test://template/123/data", map[string]string{"id": "123"}},
		{"test://template/{id}/data", "test://template/123/extra/data", nil},
		{"test://template/{id}/data", "test://template/123/data/", nil},
		{"test://template/{id}/data", "test://other/123/data", nil},
		{"test://template/{id}/data", "test://template//data", map[string]string{}},
		{"file:///{path}", "file:///readme.md", map[string]string{"path": "readme.md"}},
		{"file:///{path}", "file:///a/b", nil},
		{"file:///{path}", "file:///a?b", nil},
		{"{x}", "", map[string]string{}},
		{"{x}", "abc", map[string]string{"x": "abc"}},
		// Reserved expansion spans '/'.
		{"file:///{+path}", "file:///a/b/c.txt", map[string]string{"path": "a/b/c.txt"}},
		{"file:///{+path}", "file:///", map[string]string{}},
		{"file:///{+path}", "file://", nil},
		{"file:///{+path}", "http:///a", nil},
		{"{+path}/data", "a/data/b/data", map[string]string{"path": "a/data/b"}},
		{"{+base}/files/{name}", "x/y/files/z", map[string]string{"base": "x/y", "name": "z"}},
		{"{+path}/here", "/foo/bar/here", map[string]string{"path": "/foo/bar"}},
		{"here?ref={+path}", "here?ref=/foo/bar", map[string]string{"path": "/foo/bar"}},
		{"file:///{+path}{?v}", "file:///a/b?v=2", map[string]string{"path": "a/b", "v": "2"}},
		{"file:///{+path}{?v}", "file:///a/b", map[string]string{"path": "a/b"}},
		{"{+path}{#frag}", "/a/b#sec/1", map[string]string{"path": "/a/b", "frag": "sec/1"}},
		// Percent-decoding.
		{"notes://{title}", "notes://hello%20world", map[string]string{"title": "hello world"}},
		{"notes://{title}", "notes://caf%C3%A9", map[string]string{"title": "caf\u00e9"}},
		{"notes://{title}", "notes://a%2Fb", map[string]string{"title": "a/b"}},
		{"notes://{title}", "notes://bad%2", nil},
		{"notes://{title}", "notes://bad%zz", nil},
		{"file:///{+path}", "file:///my%20docs/a.txt", map[string]string{"path": "my docs/a.txt"}},
		// Query parameters: any order, absent allowed, unknown rejected.
		{"users://{user}/posts{?limit,offset}", "users://bob/posts", map[string]string{"user": "bob"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=5", map[string]string{"user": "bob", "limit": "5"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=5&offset=10", map[string]string{"user": "bob", "limit": "5", "offset": "10"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?offset=10&limit=5", map[string]string{"user": "bob", "limit": "5", "offset": "10"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?offset=a%20b", map[string]string{"user": "bob", "offset": "a b"}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=", map[string]string{"user": "bob", "limit": ""}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit", map[string]string{"user": "bob", "limit": ""}},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?other=1", nil},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=1&limit=2", nil},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?limit=1&", nil},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts#frag", nil},
		{"users://{user}/posts{?limit,offset}", "users://a/b/posts", nil},
		{"search{?q}{&lang,page}", "search?page=2&q=go&lang=en", map[string]string{"q": "go", "lang": "en", "page": "2"}},
		{"search?fixed=yes{&x}", "search?fixed=yes&x=1024", map[string]string{"x": "1024"}},
		{"search?fixed=yes{&x}", "search?fixed=yes", map[string]string{}},
		{"search?fixed=yes{&x}", "search?fixed=no&x=1", nil},
		{"{?x,y,empty}", "?x=1024&y=768&empty=", map[string]string{"x": "1024", "y": "768", "empty": ""}},
		{"{?list*}", "?list=red&list=green&list=blue", map[string]string{"list": "red,green,blue"}},
		{"{?list}", "?list=red,green,blue", map[string]string{"list": "red,green,blue"}},
		{"{?keys*}", "?semi=%3B", nil},
		{"{?a}", "?a=1+2", map[string]string{"a": "1+2"}},
		// Multiple variables and other operators.
		{"map?{x,y}", "map?1024,768", map[string]string{"x": "1024", "y": "768"}},
		{"map?{x,y}", "map?1024", map[string]string{"x": "1024"}},
		{"{x,y}", "a,b,c", map[string]string{"x": "a", "y": "b,c"}},
		{"X{.x,y}", "X.1024.768", map[string]string{"x": "1024", "y": "768"}},
		{"X{.var}", "X.value", map[string]string{"var": "value"}},
		{"X{.var}", "X", map[string]string{}},
		{"X{.var}", "X.", map[string]string{"var": ""}},
		{"{/var,x}/here", "/value/1024/here", map[string]string{"var": "value", "x": "1024"}},
		{"{/var,x}/here", "/value/1024/extra/here", nil},
		{"test://template{/id}/data", "test://template/123/data", map[string]string{"id": "123"}},
		{"test://template{/id}/data", "test://template/1/2/data", nil},
		{"{/list*}", "/red/green/blue", map[string]string{"list": "red,green,blue"}},
		{"{;x,y}", ";x=1024;y=768", map[string]string{"x": "1024", "y": "768"}},
		{"{;x,y}", ";y=768;x=1024", map[string]string{"x": "1024", "y": "768"}},
		{"{;x,y,empty}", ";x=1024;y=768;empty", map[string]string{"x": "1024", "y": "768", "empty": ""}},
		{"{;x,y}", ";z=1", nil},
		{"{;list*}", ";list=red;list=green;list=blue", map[string]string{"list": "red,green,blue"}},
		{"s://{x}{/p}{;q}", "s://a/b;q=c", map[string]string{"x": "a", "p": "b", "q": "c"}},
		{"s://{x}{/p}{;q}", "s://a;q=c", map[string]string{"x": "a", "q": "c"}},
		{"{x}{.ext}", "a.tar.gz", map[string]string{"x": "a.tar.gz"}},
		{"{x}.{ext}", "a.tar.gz", map[string]string{"x": "a.tar", "ext": "gz"}},
		{"{#x,hello,y}", "#1024,Hello%20World!,768", map[string]string{"x": "1024", "hello": "Hello World!", "y": "768"}},
		{"{+x,hello,y}", "1024,Hello%20World!,768", map[string]string{"x": "1024", "hello": "Hello World!", "y": "768"}},
		{"{hello}", "Hello%20World%21", map[string]string{"hello": "Hello World!"}},
		// Prefix modifiers and repeated variables.
		{"{var:3}", "val", map[string]string{"var": "val"}},
		{"{var:3}", "value", nil},
		{"{/var:1,var}", "/v/value", map[string]string{"var": "value"}},
		{"{/var:1,var}", "/x/value", nil},
		{"{a}/{a}", "1/1", map[string]string{"a": "1"}},
		{"{a}/{a}", "1/2", nil},
		// Literals.
		{"static://resource", "static://resource", map[string]string{}},
		{"static://resource", "static://resource2", nil},
		{"", "", map[string]string{}},
		{"", "x", nil},
		{"my docs/{name}", "my docs/a", map[string]string{"name": "a"}},
		{"my docs/{name}", "my%20docs/a", map[string]string{"name": "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.template+" "+tt.uri, func(t *testing.T) {
			t.Parallel()
			got, ok := uritemplate.MustParse(tt.template).Match(tt.uri)
			if tt.want == nil {
				if ok {
					t.Fatalf("Match(%q) = %q, true; want no match", tt.uri, got)
				}
				return
			}
			if !ok {
				t.Fatalf("Match(%q) = no match, want %q", tt.uri, tt.want)
			}
			if got == nil {
				t.Fatal("Match returned a nil map on success")
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("Match(%q) = %q, want %q", tt.uri, got, tt.want)
			}
		})
	}
}

func TestExpandMatchRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		template string
		vars     map[string]string
	}{
		{"test://template/{id}/data", map[string]string{"id": "123"}},
		{"test://template/{id}/data", map[string]string{"id": "a b/c?d#e%f"}},
		{"file:///{+path}", map[string]string{"path": "dir/sub dir/file.txt"}},
		{"users://{user}/posts{?limit,offset}", map[string]string{"user": "bob", "limit": "5", "offset": "10"}},
		{"users://{user}/posts{?limit,offset}", map[string]string{"user": "al&ice", "offset": "x=y"}},
		{"{/a,b,c}", map[string]string{"a": "1", "b": "two", "c": "3/4"}},
		{"{;p,q}", map[string]string{"p": "", "q": "v;w"}},
		{"X{.x,y}", map[string]string{"x": "1024", "y": "768"}},
		{"search{?q}{&lang}", map[string]string{"q": "\u65e5\u672c", "lang": "ja"}},
		{"{+base}{#frag}", map[string]string{"base": "http://h/p", "frag": "top"}},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			tmpl := uritemplate.MustParse(tt.template)
			vars := make(map[string]any, len(tt.vars))
			for k, v := range tt.vars {
				vars[k] = v
			}
			uri, err := tmpl.Expand(vars)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			got, ok := tmpl.Match(uri)
			if !ok {
				t.Fatalf("Match(%q) failed", uri)
			}
			if !maps.Equal(got, tt.vars) {
				t.Errorf("Match(%q) = %q, want %q", uri, got, tt.vars)
			}
		})
	}
}

// TestMatchHostileInput checks that inputs that make backtracking matchers
// explode are handled quickly.
func TestMatchHostileInput(t *testing.T) {
	t.Parallel()
	const n = 200_000
	tests := []struct{ template, uri string }{
		{"{+a}x{+b}x{+c}x{+d}y", strings.Repeat("x", n)},
		{"{a}{b}{c}{d}{e}!", strings.Repeat("a", n)},
		{"{+a}/{+b}/{+c}/end", strings.Repeat("/", n) + "en"},
		{"{/a,b,c}{?x,y}", strings.Repeat("/a", n/2) + "?" + strings.Repeat("x=1&", n/4)},
		{"{?x*}", "?" + strings.Repeat("x=%41&", n/6) + "x=1"},
		{"{;x*}", ";" + strings.Repeat("x;", n/2)},
		{"{x}", strings.Repeat("%", n)},
	}
	for _, tt := range tests {
		start := time.Now()
		tmpl := uritemplate.MustParse(tt.template)
		tmpl.Match(tt.uri)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Match(%q, %d bytes) took %v", tt.template, len(tt.uri), d)
		}
	}
}

func TestNilTemplate(t *testing.T) {
	t.Parallel()
	var tmpl *uritemplate.Template
	if _, ok := tmpl.Match("x"); ok {
		t.Error("nil template matched")
	}
	if tmpl.String() != "" || tmpl.Vars() != nil {
		t.Error("nil template has text or variables")
	}
}

func FuzzMatch(f *testing.F) {
	seeds := []struct{ template, uri string }{
		{"test://template/{id}/data", "test://template/123/data"},
		{"file:///{+path}", "file:///a/b/c"},
		{"users://{user}/posts{?limit,offset}", "users://bob/posts?offset=1&limit=2"},
		{"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
		{"{;x,y,empty}", ";x=1024;y=768;empty"},
		{"X{.x,y}", "X.1024.768"},
		{"{#x,hello,y}", "#1024,Hello%20World!,768"},
		{"{a}{a:2}{+a}", "abab"},
		{"{?x}{&y}{#z}", "?x=1&y=2#3"},
		{"%%{x}", "%%%"},
		{"{x}", "%"},
		{"", ""},
	}
	for _, s := range seeds {
		f.Add(s.template, s.uri)
	}
	f.Fuzz(func(t *testing.T, template, uri string) {
		tmpl, err := uritemplate.Parse(template)
		if err != nil {
			return
		}
		got, ok := tmpl.Match(uri)
		if !ok {
			return
		}
		names := map[string]bool{}
		for _, name := range tmpl.Vars() {
			names[name] = true
		}
		for name := range got {
			if !names[name] {
				t.Fatalf("Match(%q) on %q returned unknown variable %q", uri, template, name)
			}
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	benchmarks := []struct{ name, template, uri string }{
		{"simple", "test://template/{id}/data", "test://template/12345/data"},
		{"reserved", "file:///{+path}", "file:///home/user/projects/sake/README.md"},
		{"query", "users://{user}/posts{?limit,offset}", "users://bob/posts?offset=10&limit=5"},
		{"encoded", "notes://{title}", "notes://hello%20world%21"},
		{"mismatch", "test://template/{id}/data", "file:///home/user/README.md"},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			tmpl := uritemplate.MustParse(bm.template)
			b.ReportAllocs()
			for b.Loop() {
				tmpl.Match(bm.uri)
			}
		})
	}
}

func Example() {
	tmpl := uritemplate.MustParse("users://{user}/posts{?limit,offset}")
	fmt.Println(tmpl.Vars())

	uri, err := tmpl.Expand(map[string]any{"user": "alice smith", "limit": "10"})
	if err != nil {
		panic(err)
	}
	fmt.Println(uri)

	vars, ok := tmpl.Match("users://bob/posts?offset=20&limit=5")
	fmt.Println(ok, vars["user"], vars["limit"], vars["offset"])

	_, ok = tmpl.Match("users://bob/comments")
	fmt.Println(ok)
	// Output:
	// [user limit offset]
	// users://alice%20smith/posts?limit=10
	// true bob 5 20
	// false
}
