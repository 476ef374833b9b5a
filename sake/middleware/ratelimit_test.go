package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// limited returns a server whose callers may make 10 tools/call a second.
func limited(t *testing.T, clk *clock, limits ...middleware.Limit) *sake.Server {
	t.Helper()
	if len(limits) == 0 {
		limits = []middleware.Limit{{Rate: 10, Methods: []string{"tools/call"}}}
	}
	rl, err := middleware.NewRateLimiter(limits, middleware.Clock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	return sake.MustNew(tools{}, sake.Use(rl.Middleware()), sake.Logger(quiet))
}

// In memory, in both eras: the 11th call of a 10/s limit is refused with
// CodeRateLimited and the delay until the next token; after that delay the
// 12th goes through; another subject is unaffected.
func TestRateLimitInMemory(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		clk := newClock()
		srv := limited(t, clk)
		alice := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("alice"))...)
		bob := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("bob"))...)
		for i := range 10 {
			if _, err := alice.CallTool("echo", map[string]any{"text": "hi"}); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
		_, err := alice.CallTool("echo", map[string]any{"text": "hi"})
		e := rpcError(t, err)
		if e.Code != sake.CodeRateLimited || !errors.Is(err, middleware.ErrRateLimited) {
			t.Fatalf("11th call: %v, want code %d", err, sake.CodeRateLimited)
		}
		if ms := retryMs(t, e); ms != 100 {
			t.Errorf("retryAfterMs = %d, want 100 (one token every 100ms)", ms)
		}
		if _, err := bob.CallTool("echo", map[string]any{"text": "hi"}); err != nil {
			t.Errorf("another subject: %v", err)
		}
		// Nothing but calls counts: a list still works.
		if _, err := alice.ListTools(); err != nil {
			t.Errorf("tools/list: %v", err)
		}
		clk.Advance(100 * time.Millisecond)
		if _, err := alice.CallTool("echo", map[string]any{"text": "hi"}); err != nil {
			t.Fatalf("12th call after the refill: %v", err)
		}
		if _, err := alice.CallTool("echo", map[string]any{"text": "hi"}); rpcError(t, err).Code != sake.CodeRateLimited {
			t.Fatalf("13th call: %v, want refused again", err)
		}
	})
}

// Over HTTP, in both eras: the 11th call is a 429 with Retry-After and the
// JSON-RPC error in the body; after the refill the 12th is a 200; another
// user, and another anonymous address, are unaffected.
func TestRateLimitOverHTTP(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			h := endpoint(t, limited(t, clk))
			for _, who := range []struct{ name, addr, user string }{{"user", "192.0.2.1", "alice"}, {"anonymous", "192.0.2.7", ""}} {
				t.Run(who.name, func(t *testing.T) {
					c := newHTTPCaller(t, h, era, who.addr, who.user)
					for i := range 10 {
						if r := c.call("echo"); r.Code != http.StatusOK || rpcOf(t, r.Body.Bytes()) != nil {
							t.Fatalf("call %d: %d %s", i+1, r.Code, r.Body)
						}
					}
					r := c.call("echo")
					if r.Code != http.StatusTooManyRequests {
						t.Fatalf("11th call: %d %s, want 429", r.Code, r.Body)
					}
					if ra, err := strconv.Atoi(r.Header().Get("Retry-After")); err != nil || ra != 1 {
						t.Errorf("Retry-After = %q, want 1 (whole seconds, rounded up)", r.Header().Get("Retry-After"))
					}
					e := rpcOf(t, r.Body.Bytes())
					if e == nil || e.Code != sake.CodeRateLimited || retryMs(t, e) != 100 {
						t.Fatalf("11th call body: %s", r.Body)
					}
					if prefix := `{"jsonrpc":"2.0","id":` + itoa(c.id) + `,`; string(r.Body.Bytes()[:len(prefix)]) != prefix {
						t.Errorf("the error does not answer request %d: %s", c.id, r.Body)
					}
					// Same address, another user; another address, anonymous.
					for _, other := range []*httpCaller{newHTTPCaller(t, h, era, who.addr, "carol-"+who.name), newHTTPCaller(t, h, era, "198.51.100.9", "")} {
						if r := other.call("echo"); r.Code != http.StatusOK {
							t.Errorf("another subject: %d %s", r.Code, r.Body)
						}
					}
					clk.Advance(100 * time.Millisecond)
					if r := c.call("echo"); r.Code != http.StatusOK || rpcOf(t, r.Body.Bytes()) != nil {
						t.Fatalf("12th call after the refill: %d %s", r.Code, r.Body)
					}
					clk.Advance(-100 * time.Millisecond) // for the next subtest's clock
				})
			}
		})
	}
}

// A limit on a tool group counts only those tools, in one bucket; a
// server-wide limit (Everyone) counts every caller together; when one
// limit refuses, the others keep their tokens.
func TestRateLimitGroupsAndServerWide(t *testing.T) {
	t.Parallel()
	clk := newClock()
	srv := limited(t, clk,
		middleware.Limit{Name: "lookups", Rate: 2, Tools: []string{"search", "fetch"}},
		middleware.Limit{Name: "server", Rate: 5, Key: middleware.Everyone, Methods: []string{"tools/call"}},
	)
	alice := saketest.Connect(t, srv, saketest.Scopes(), saketest.Subject("alice"))
	bob := saketest.Connect(t, srv, saketest.Scopes(), saketest.Subject("bob"))
	ok := func(c *saketest.Client, tool string) {
		t.Helper()
		if _, err := c.CallTool(tool, map[string]any{"text": "x"}); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	refused := func(c *saketest.Client, tool, limit string) {
		t.Helper()
		_, err := c.CallTool(tool, map[string]any{"text": "x"})
		if e := rpcError(t, err); e.Code != sake.CodeRateLimited || !containsLimit(e, limit) {
			t.Fatalf("%s: %v, want refused by %q", tool, err, limit)
		}
	}
	ok(alice, "search")
	ok(alice, "fetch")
	refused(alice, "search", "lookups") // the group's bucket is empty
	ok(alice, "echo")                   // not in the group
	ok(bob, "search")                   // bob's own group bucket
	// The server-wide bucket has 5 tokens: alice took 3, bob 1; the
	// refused search gave back its server-wide token.
	ok(bob, "echo")
	refused(bob, "echo", "server")
	refused(alice, "echo", "server")
	clk.Advance(200 * time.Millisecond) // one server-wide token
	ok(alice, "echo")
}

func containsLimit(e *sake.Error, limit string) bool {
	d, ok := e.Data.(map[string]any)
	return ok && d["limit"] == limit
}

// A limit without Methods counts every request, the handshake (initialize,
// or server/discover) and lists included; notifications do not count.
func TestRateLimitEveryRequest(t *testing.T) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		clk := newClock()
		srv := limited(t, clk, middleware.Limit{Rate: 4})
		c := saketest.Connect(t, srv, append(opts, saketest.Scopes(), saketest.Subject("alice"))...) // 1
		if _, err := c.ListTools(); err != nil {                                                     // 2
			t.Fatal(err)
		}
		if _, err := c.CallTool("echo", map[string]any{"text": "x"}); err != nil { // 3
			t.Fatal(err)
		}
		if _, err := c.ListTools(); err != nil { // 4
			t.Fatal(err)
		}
		if _, err := c.ListTools(); rpcError(t, err).Code != sake.CodeRateLimited {
			t.Fatalf("5th request: %v, want refused", err)
		}
	})
}

// Machine clients count by client id, whoever the token was minted for;
// ByClient counts people by their application.
func TestRateLimitKeys(t *testing.T) {
	t.Parallel()
	id := func(sub, client string) *sake.Request {
		return &sake.Request{Method: "tools/call", Params: &sake.Params{}, Identity: &sake.Identity{Subject: sub, ClientID: client}}
	}
	cases := []struct {
		key  middleware.KeyFunc
		req  *sake.Request
		want string
	}{
		{middleware.SubjectOf, id("alice", "app"), "sub:alice"},
		{middleware.SubjectOf, id("", "ci-bot"), "client:ci-bot"},
		{middleware.SubjectOf, &sake.Request{Params: &sake.Params{}}, "anonymous"},
		{middleware.ByClient, id("alice", "app"), "client:app"},
		{middleware.Everyone, id("alice", "app"), "everyone"},
	}
	for _, c := range cases {
		if got := c.key(c.req).String(); got != c.want {
			t.Errorf("key = %s, want %s", got, c.want)
		}
	}
	// A person and a client with the same name are two subjects.
	if middleware.SubjectOf(id("x", "")) == middleware.SubjectOf(id("", "x")) {
		t.Error("sub:x and client:x share a bucket")
	}
}

// IPv6 callers of one /64 share a bucket; other networks do not.
func TestRateLimitIPv6Network(t *testing.T) {
	t.Parallel()
	clk := newClock()
	h := endpoint(t, limited(t, clk, middleware.Limit{Rate: 1, Methods: []string{"tools/call"}}))
	post := func(addr string) int {
		c := newHTTPCaller(t, h, protocol.ModernVersion, "", "")
		c.addr = addr
		return c.call("echo").Code
	}
	if code := post("[2001:db8:1:2::1]"); code != http.StatusOK {
		t.Fatalf("first: %d", code)
	}
	if code := post("[2001:db8:1:2:ffff::9]"); code != http.StatusTooManyRequests {
		t.Errorf("same /64: %d, want 429", code)
	}
	if code := post("[2001:db8:1:3::1]"); code != http.StatusOK {
		t.Errorf("another /64: %d, want 200", code)
	}
}

func TestNewRateLimiterRefuses(t *testing.T) {
	t.Parallel()
	for name, limits := range map[string][]middleware.Limit{
		"no rate":   {{Name: "a"}},
		"same name": {{Rate: 1}, {Rate: 2}},
		"too fast":  {{Rate: 2, Per: time.Nanosecond}},
	} {
		if _, err := middleware.NewRateLimiter(limits); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The store is bounded: at MaxKeys the least recently used bucket goes.
func TestMemoryBucketsBounded(t *testing.T) {
	t.Parallel()
	s := middleware.NewMemoryBuckets(64)
	ctx, now := context.Background(), time.Now()
	r := middleware.Rate{Interval: time.Second, Burst: 1}
	for i := range 1000 {
		k := middleware.BucketKey{Limit: "l", Subject: middleware.Subject{Kind: middleware.SubjectUser, ID: strconv.Itoa(i)}}
		if wait, _ := s.Take(ctx, k, r, now); wait != 0 {
			t.Fatalf("fresh bucket %d refused", i)
		}
	}
	if n := s.Len(); n > 64+31 || n < 32 {
		t.Errorf("Len = %d, want about 64", n)
	}
	// A returned token can be taken again; a bucket is never over full.
	k := middleware.BucketKey{Limit: "l", Subject: middleware.Subject{Kind: middleware.SubjectUser, ID: "z"}}
	if w, _ := s.Take(ctx, k, r, now); w != 0 {
		t.Fatal("first take refused")
	}
	if w, _ := s.Take(ctx, k, r, now); w != time.Second {
		t.Fatalf("second take: wait %v, want 1s", w)
	}
	_ = s.Return(ctx, k, r, now)
	_ = s.Return(ctx, k, r, now)
	if w, _ := s.Take(ctx, k, r, now); w != 0 {
		t.Fatal("take after return refused")
	}
	if w, _ := s.Take(ctx, k, r, now); w == 0 {
		t.Fatal("two returns made the bucket hold more than its burst")
	}
}

// A limit counts the same requests whether its tools and methods are few
// (compared) or many (looked up): the named ones, and no others.
func TestRateLimitFewAndManyNamesCountAlike(t *testing.T) {
	t.Parallel()
	padding := []string{"a", "b", "c", "d"}
	for _, many := range []bool{false, true} {
		tools, methods := []string{"search"}, []string{"tools/call"}
		if many {
			tools, methods = append(tools, padding...), append(methods, padding...)
		}
		clk := newClock()
		srv := limited(t, clk,
			middleware.Limit{Name: "search", Rate: 1, Tools: tools},
			middleware.Limit{Name: "calls", Rate: 3, Methods: methods},
		)
		c := saketest.Connect(t, srv, saketest.Scopes(), saketest.Subject("alice"))
		call := func(tool string) error {
			_, err := c.CallTool(tool, map[string]any{"text": "x"})
			return err
		}
		if err := call("search"); err != nil {
			t.Fatalf("many=%v: first search: %v", many, err)
		}
		if e := rpcError(t, call("search")); e.Code != sake.CodeRateLimited || !containsLimit(e, "search") {
			t.Fatalf("many=%v: second search: %v, want refused by search", many, e)
		}
		if err := call("echo"); err != nil { // not in the group; the calls limit's 2nd token
			t.Fatalf("many=%v: echo: %v", many, err)
		}
		if _, err := c.ListTools(); err != nil { // another method: not counted
			t.Fatalf("many=%v: tools/list: %v", many, err)
		}
		if err := call("echo"); err != nil {
			t.Fatalf("many=%v: echo: %v", many, err)
		}
		if e := rpcError(t, call("echo")); e.Code != sake.CodeRateLimited || !containsLimit(e, "calls") {
			t.Fatalf("many=%v: fourth call: %v, want refused by calls", many, e)
		}
	}
}
