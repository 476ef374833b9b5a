package middleware_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// library counts how often each of its components ran, and says in each
// result who asked and how many times it has run.
type library struct {
	mu   sync.Mutex
	runs map[string]int
}

func newLibrary() *library { return &library{runs: map[string]int{}} }

func (l *library) ran(what string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[what]++
	return l.runs[what]
}

// Runs is how often a component ran.
func (l *library) Runs(what string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[what]
}

type lookupArgs struct {
	Q string `json:"q"`
	N int    `json:"n,omitempty"`
}

func who(ctx *sake.Context) string {
	if id := ctx.Identity(); id != nil && id.Subject != "" {
		return id.Subject
	}
	return "nobody"
}

func (l *library) Lookup(ctx *sake.Context, a lookupArgs) (string, error) {
	return fmt.Sprintf("%s for %s, run %d", a.Q, who(ctx), l.ran("lookup")), nil
}

func (l *library) Write(ctx *sake.Context, a lookupArgs) (string, error) {
	return fmt.Sprintf("wrote %s, run %d", a.Q, l.ran("write")), nil
}

func (l *library) Failing(ctx *sake.Context, a lookupArgs) (string, error) {
	l.ran("failing")
	return "", sake.NewError(sake.CodeInvalidParams, "no such thing")
}

func (l *library) Broken(ctx *sake.Context, a lookupArgs) (*sake.ToolResult, error) {
	return sake.ErrorResult("broken, run %d", l.ran("broken")), nil
}

func (l *library) Doc(ctx *sake.Context) (string, error) {
	return fmt.Sprintf("doc for %s, run %d", who(ctx), l.ran("doc")), nil
}

func (l *library) Guarded(ctx *sake.Context) (string, error) {
	return fmt.Sprintf("guarded, run %d", l.ran("guarded")), nil
}

func (*library) Declare(d *sake.Declarations) {
	d.Tool("Lookup").ReadOnly()
	d.Tool("Failing").ReadOnly()
	d.Tool("Broken").ReadOnly()
	d.Resource("Doc", "test://doc")
	d.Resource("Guarded", "test://guarded").Scopes("docs:read")
}

// cachedLibrary is a server on lib with the cache in front.
func cachedLibrary(t testing.TB, lib *library, c middleware.Cache, opts ...sake.Option) *sake.Server {
	t.Helper()
	mw, err := c.Middleware()
	if err != nil {
		t.Fatal(err)
	}
	return sake.MustNew(lib, append([]sake.Option{sake.Use(mw), sake.Logger(quiet)}, opts...)...)
}

// as adds a token of the person sub, with no scopes, to opts.
func as(opts []saketest.Option, sub string) []saketest.Option {
	return append(append([]saketest.Option{}, opts...), saketest.Scopes(), saketest.Subject(sub))
}

func callText(t *testing.T, c *saketest.Client, tool string, args any) string {
	t.Helper()
	res, err := c.CallTool(tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text()
}

func readText(t *testing.T, c *saketest.Client, uri string) string {
	t.Helper()
	rc, err := c.ReadResource(uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return rc[0].Text
}

// In memory, in both eras: a read-only tool's result is served again for
// the same arguments in any key order, and not for others; a tool that is
// not read-only, an error and an isError result always run; the TTL ends
// an entry.
func TestCacheHitsAndMisses(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		clk := newClock()
		lib := newLibrary()
		srv := cachedLibrary(t, lib, middleware.Cache{TTL: time.Minute, Clock: clk.Now})
		c := saketest.Connect(t, srv, as(opts, "alice")...)
		first := callText(t, c, "lookup", map[string]any{"q": "go", "n": 1})
		again := callText(t, c, "lookup", map[string]any{"n": 1, "q": "go"})
		if first != "go for alice, run 1" || again != first {
			t.Fatalf("first %q, again %q: want one run", first, again)
		}
		if got := callText(t, c, "lookup", map[string]any{"q": "go", "n": 2}); got != "go for alice, run 2" {
			t.Errorf("other arguments: %q, want a new run", got)
		}
		for range 2 {
			if _, err := c.CallTool("write", map[string]any{"q": "x"}); err != nil {
				t.Fatal(err)
			}
			_, err := c.CallTool("failing", map[string]any{"q": "x"})
			if e := rpcError(t, err); e.Code != sake.CodeInvalidParams {
				t.Fatalf("failing: %v", err)
			}
			if _, err := c.CallTool("broken", map[string]any{"q": "x"}); err == nil || !strings.Contains(err.Error(), "broken, run") {
				t.Fatalf("broken: %v, want its isError result", err)
			}
		}
		for _, what := range []string{"write", "failing", "broken"} {
			if n := lib.Runs(what); n != 2 {
				t.Errorf("%s ran %d times, want 2: not kept", what, n)
			}
		}
		clk.Advance(time.Minute - time.Millisecond)
		if got := callText(t, c, "lookup", map[string]any{"q": "go", "n": 1}); got != first {
			t.Errorf("within the TTL: %q", got)
		}
		clk.Advance(time.Millisecond)
		if got := callText(t, c, "lookup", map[string]any{"q": "go", "n": 1}); got != "go for alice, run 3" {
			t.Errorf("after the TTL: %q, want a new run", got)
		}
	})
}

// One subject's private result is never served to another: a tool's
// results are private; a resource's follow the server's cacheScope.
func TestCachePrivateResults(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		for _, scope := range []string{"public", "private"} {
			lib := newLibrary()
			srv := cachedLibrary(t, lib, middleware.Cache{}, sake.CacheHints(0, 0, scope))
			alice := saketest.Connect(t, srv, as(opts, "alice")...)
			bob := saketest.Connect(t, srv, as(opts, "bob")...)
			a := callText(t, alice, "lookup", map[string]any{"q": "go"})
			b := callText(t, bob, "lookup", map[string]any{"q": "go"})
			if a != "go for alice, run 1" || b != "go for bob, run 2" {
				t.Errorf("%s: alice got %q, bob %q", scope, a, b)
			}
			if again := callText(t, bob, "lookup", map[string]any{"q": "go"}); again != b {
				t.Errorf("%s: bob again: %q", scope, again)
			}
			a, b = readText(t, alice, "test://doc"), readText(t, bob, "test://doc")
			if scope == "public" && (a != "doc for alice, run 1" || b != a) {
				t.Errorf("public resource: alice %q, bob %q: want one shared run", a, b)
			}
			if scope == "private" && (a != "doc for alice, run 1" || b != "doc for bob, run 2") {
				t.Errorf("private resource: alice %q, bob %q", a, b)
			}
		}
	})
}

// A rule sets a tool's scope and TTL, or keeps it out of the cache.
func TestCacheRules(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		clk := newClock()
		lib := newLibrary()
		srv := cachedLibrary(t, lib, middleware.Cache{Clock: clk.Now, Rules: []middleware.CacheRule{
			{Tools: []string{"lookup"}, Scope: middleware.ScopePublic, TTL: time.Second},
			{URIs: []string{"test://doc"}, TTL: -1},
		}})
		alice := saketest.Connect(t, srv, as(opts, "alice")...)
		bob := saketest.Connect(t, srv, as(opts, "bob")...)
		a := callText(t, alice, "lookup", map[string]any{"q": "go"})
		if b := callText(t, bob, "lookup", map[string]any{"q": "go"}); b != a {
			t.Errorf("public tool: bob got %q, alice %q", b, a)
		}
		clk.Advance(time.Second)
		if b := callText(t, bob, "lookup", map[string]any{"q": "go"}); b != "go for bob, run 2" {
			t.Errorf("after the rule's TTL: %q", b)
		}
		readText(t, alice, "test://doc")
		readText(t, alice, "test://doc")
		if n := lib.Runs("doc"); n != 2 {
			t.Errorf("a resource whose rule says TTL -1 ran %d times, want 2", n)
		}
	})
}

// A bad rule is refused when the middleware is made.
func TestCacheRefusesBadRules(t *testing.T) {
	for _, rules := range [][]middleware.CacheRule{
		{{Tools: []string{"a"}, Scope: "shared"}},
		{{Tools: []string{"a"}}, {Tools: []string{"b", "a"}}},
		{{URIs: []string{"x://a"}}, {URIs: []string{"x://a"}}},
	} {
		if _, err := (middleware.Cache{Rules: rules}).Middleware(); err == nil {
			t.Errorf("rules %+v accepted", rules)
		}
	}
}

// A cached public resource is served only to callers its requirement
// admits: a caller without the scope is refused, as without the cache,
// and the refusal changes nothing kept.
func TestCacheKeepsRequirements(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		lib := newLibrary()
		srv := cachedLibrary(t, lib, middleware.Cache{})
		reader := saketest.Connect(t, srv, append(opts, saketest.Scopes("docs:read"), saketest.Subject("alice"))...)
		outsider := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("mallory"))...)
		first := readText(t, reader, "test://guarded")
		_, err := outsider.ReadResource("test://guarded")
		var scopeErr *protocol.InsufficientScopeError
		if !errors.As(err, &scopeErr) {
			t.Fatalf("a caller without the scope: %v, want insufficient scope", err)
		}
		if again := readText(t, reader, "test://guarded"); again != first || lib.Runs("guarded") != 1 {
			t.Errorf("the reader again: %q after %d runs", again, lib.Runs("guarded"))
		}
	})
}

// A resource update drops the resource's results; a list change drops
// those of its kind and no others.
func TestCacheInvalidation(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		lib := newLibrary()
		srv := cachedLibrary(t, lib, middleware.Cache{})
		c := saketest.Connect(t, srv, as(opts, "alice")...)
		call := func() string { return callText(t, c, "lookup", map[string]any{"q": "go"}) }
		first, doc := call(), readText(t, c, "test://doc")
		if call() != first || readText(t, c, "test://doc") != doc {
			t.Fatal("not kept")
		}
		srv.ResourceUpdated("test://other")
		srv.NotifyListChanged(sake.ListPrompts)
		if lib.Runs("lookup") != 1 || readText(t, c, "test://doc") != "doc for alice, run 1" {
			t.Fatal("an unrelated broadcast dropped results")
		}
		srv.ResourceUpdated("test://doc")
		if got := readText(t, c, "test://doc"); got != "doc for alice, run 2" {
			t.Errorf("after the update: %q", got)
		}
		if call() != "go for alice, run 1" {
			t.Error("a resource update dropped a tool's result")
		}
		srv.NotifyListChanged(sake.ListTools)
		if got := call(); got != "go for alice, run 2" {
			t.Errorf("after tools list_changed: %q", got)
		}
		if readText(t, c, "test://doc") != "doc for alice, run 2" {
			t.Error("tools list_changed dropped a resource's result")
		}
		srv.NotifyListChanged(sake.ListResources)
		if got := readText(t, c, "test://doc"); got != "doc for alice, run 3" {
			t.Errorf("after resources list_changed: %q", got)
		}
	})
}

// The cache holds no more than MaxEntries results and MaxBytes bytes,
// giving way to the least recently used.
func TestCacheBounded(t *testing.T) {
	t.Parallel()
	lib := newLibrary()
	srv := cachedLibrary(t, lib, middleware.Cache{MaxEntries: 2})
	c := saketest.Connect(t, srv, as(nil, "alice")...)
	call := func(q string) string { return callText(t, c, "lookup", map[string]any{"q": q}) }
	a := call("a")
	call("b")
	call("a") // a is the most recent
	call("c") // b gives way
	if call("a") != a {
		t.Error("the most recently used was dropped")
	}
	if got := call("b"); !strings.HasSuffix(got, "run 4") {
		t.Errorf("b: %q, want a new run", got)
	}
	// A result bigger than the whole cache is not kept.
	lib2 := newLibrary()
	small := saketest.Connect(t, cachedLibrary(t, lib2, middleware.Cache{MaxBytes: 100}), as(nil, "alice")...)
	long := strings.Repeat("x", 200)
	for range 2 {
		if _, err := small.CallTool("lookup", map[string]any{"q": long}); err != nil {
			t.Fatal(err)
		}
	}
	if n := lib2.Runs("lookup"); n != 2 {
		t.Errorf("an oversized result was kept: %d runs", n)
	}
}

// other has a read-only lookup too, which answers otherwise.
type other struct{}

func (other) Lookup(ctx *sake.Context, a lookupArgs) (string, error) { return "other " + a.Q, nil }
func (other) Declare(d *sake.Declarations)                           { d.Tool("Lookup").ReadOnly() }

// One cache middleware given to two servers keeps their results apart.
func TestCacheSharedByServers(t *testing.T) {
	t.Parallel()
	mw, err := middleware.Cache{}.Middleware()
	if err != nil {
		t.Fatal(err)
	}
	lib := newLibrary()
	a := saketest.Connect(t, sake.MustNew(lib, sake.Use(mw), sake.Logger(quiet)), as(nil, "alice")...)
	b := saketest.Connect(t, sake.MustNew(other{}, sake.Use(mw), sake.Logger(quiet)), as(nil, "alice")...)
	if got := callText(t, a, "lookup", map[string]any{"q": "go"}); got != "go for alice, run 1" {
		t.Fatal(got)
	}
	if got := callText(t, b, "lookup", map[string]any{"q": "go"}); got != "other go" {
		t.Errorf("the second server got the first's result: %q", got)
	}
	if got := callText(t, a, "lookup", map[string]any{"q": "go"}); got != "go for alice, run 1" {
		t.Errorf("the first server's result: %q", got)
	}
}
