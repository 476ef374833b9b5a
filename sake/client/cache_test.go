package client_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/plug"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// clock is a settable clock for a Cache.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// listEverything calls each cached method once.
func listEverything(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPrompts(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListResources(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListResourceTemplates(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadResource(ctx, "shelf://note"); err != nil || got[0].Text != "note for nobody" {
		t.Fatalf("read: %v, %v", got, err)
	}
}

var cachedKeys = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read shelf://note"}

// The second list within the server's ttlMs (or, in the handshake era,
// CacheUnhinted's time) sends no request; every transport, both eras.
func TestCacheServesWithinTTL(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era sake.Era, opts []client.Option) {
		g := newGate()
		srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
		cache := client.NewCache(client.CacheUnhinted(time.Minute))
		c := connect(t, tr, srv, append(opts, client.WithCache(cache))...)
		listEverything(t, c)
		listEverything(t, c)
		for _, k := range cachedKeys {
			if n := g.count(k); n != 1 {
				t.Errorf("%s reached the server %d times, want 1", k, n)
			}
		}
		if cache.Len() != len(cachedKeys) || cache.Bytes() <= 0 {
			t.Fatalf("cache holds %d entries, %d bytes", cache.Len(), cache.Bytes())
		}
		// RefreshCache asks the server again.
		if _, err := c.ListTools(client.RefreshCache(t.Context())); err != nil {
			t.Fatal(err)
		}
		if n := g.count("tools/list"); n != 2 {
			t.Fatalf("RefreshCache: tools/list reached the server %d times, want 2", n)
		}
	})
}

// What the server does not allow is not kept: a ttlMs of 0 (the default),
// results without hints when CacheUnhinted is not set, errors.
func TestCacheKeepsOnlyWhatTheServerAllows(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era sake.Era, opts []client.Option) {
		g := newGate()
		cache := client.NewCache()
		c := connect(t, tr, newShelf(t, g), append(opts, client.WithCache(cache))...)
		listEverything(t, c)
		listEverything(t, c)
		for _, k := range cachedKeys {
			if n := g.count(k); n != 2 {
				t.Errorf("%s reached the server %d times, want 2", k, n)
			}
		}
		if cache.Len() != 0 {
			t.Fatalf("cache holds %d entries", cache.Len())
		}
	})
}

func TestCacheDoesNotKeepErrors(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
	c := connect(t, transports[0], srv, client.WithCache(client.NewCache()))
	for range 2 {
		if _, err := c.ReadResource(t.Context(), "shelf://items/missing"); err == nil {
			t.Fatal("read of a missing resource succeeded")
		}
	}
	if n := g.count("resources/read shelf://items/missing"); n != 2 {
		t.Fatalf("the failing read reached the server %d times, want 2", n)
	}
}

// A list_changed drops that list, a resources/updated that resource; other
// entries stay. Every transport, both eras.
func TestCacheDroppedOnChange(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era sake.Era, opts []client.Option) {
		g := newGate()
		srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
		c := connect(t, tr, srv, append(opts, client.WithCache(client.NewCache(client.CacheUnhinted(time.Minute))))...)
		got := make(chan string, 16)
		sub, err := c.Listen(t.Context(), client.Filter{ToolsListChanged: true, PromptsListChanged: true, Resources: []string{"shelf://note"}},
			func(n protocol.Notification) { got <- n.Method })
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		listEverything(t, c)

		srv.NotifyListChanged(sake.ListPrompts)
		if m := <-got; m != "notifications/prompts/list_changed" {
			t.Fatalf("got %s", m)
		}
		listEverything(t, c)
		want := map[string]int{"tools/list": 1, "prompts/list": 2, "resources/list": 1, "resources/templates/list": 1, "resources/read shelf://note": 1}
		for k, n := range want {
			if g.count(k) != n {
				t.Errorf("after prompts/list_changed: %s reached the server %d times, want %d", k, g.count(k), n)
			}
		}

		srv.NotifyListChanged(sake.ListTools)
		if m := <-got; m != "notifications/tools/list_changed" {
			t.Fatalf("got %s", m)
		}
		srv.ResourceUpdated("shelf://note")
		if m := <-got; m != "notifications/resources/updated" {
			t.Fatalf("got %s", m)
		}
		listEverything(t, c)
		want["tools/list"], want["resources/read shelf://note"] = 2, 2
		for k, n := range want {
			if g.count(k) != n {
				t.Errorf("after tools/list_changed and resources/updated: %s reached the server %d times, want %d", k, g.count(k), n)
			}
		}
	})
}

// A list that was on its way while the server announced a change is not
// kept: it may be the list from before the change.
func TestCacheDoesNotKeepAResultFetchedAcrossAChange(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
	c := connect(t, transports[0], srv, client.WithCache(client.NewCache()))
	got := make(chan string, 4)
	sub, err := c.Listen(t.Context(), client.Filter{ToolsListChanged: true}, func(n protocol.Notification) { got <- n.Method })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	hold, entered := make(chan struct{}), make(chan struct{})
	g.mu.Lock()
	g.hold, g.entered = hold, entered
	g.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := c.ListTools(t.Context())
		done <- err
	}()
	<-entered
	srv.NotifyListChanged(sake.ListTools)
	<-got
	g.mu.Lock()
	g.hold = nil
	g.mu.Unlock()
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := g.count("tools/list"); n != 2 {
		t.Fatalf("tools/list reached the server %d times, want 2 (the list fetched across the change must not be served)", n)
	}
}

// Entries expire with the server's ttlMs, and at CacheMaxTTL at the
// latest.
func TestCacheExpires(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hint   time.Duration
		maxTTL time.Duration
		life   time.Duration
	}{
		{"ttlMs", time.Minute, 0, time.Minute},
		{"CacheMaxTTL", 24 * time.Hour, 10 * time.Second, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newGate()
			clk := newClock()
			srv := newShelf(t, g, sake.CacheHints(tc.hint, tc.hint, "public"))
			c := connect(t, transports[0], srv, client.WithCache(client.NewCache(client.CacheClock(clk.Now), client.CacheMaxTTL(tc.maxTTL))))
			list := func(want int) {
				t.Helper()
				if _, err := c.ListTools(t.Context()); err != nil {
					t.Fatal(err)
				}
				if n := g.count("tools/list"); n != want {
					t.Fatalf("tools/list reached the server %d times, want %d", n, want)
				}
			}
			list(1)
			clk.advance(tc.life - time.Millisecond)
			list(1)
			clk.advance(time.Millisecond)
			list(2)
			list(2)
		})
	}
}

// A private result is served to the credential that fetched it only; a
// public one to every client of the server sharing the cache.
func TestCachePrivateEntriesPerCredential(t *testing.T) {
	for _, scope := range []string{"private", "public", "shared"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			g := newGate()
			h := plug.New(newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, scope)))
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); h.Close() })
			cache := client.NewCache()
			list := func(opts ...client.HTTPOption) {
				t.Helper()
				c, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil, opts...), client.WithCache(cache))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := c.ListTools(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			list(client.BearerToken("ann"))
			list(client.BearerToken("bob"))
			list(client.BearerToken("bob"), client.Header("X-Tenant", "other"))
			list(client.BearerToken("ann"))
			list()
			want := 4 // ann, bob, bob of another tenant, anonymous; a scope not understood is private
			if scope == "public" {
				want = 1
			}
			if n := g.count("tools/list"); n != want {
				t.Fatalf("tools/list reached the server %d times, want %d", n, want)
			}
		})
	}
}

// A private read is never served to another identity, even when the
// clients share one cache and one server.
func TestCachePrivateReadNotSharedBetweenIdentities(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "private"))
	cache := client.NewCache()
	read := func(id *sake.Identity) string {
		t.Helper()
		c, err := client.Connect(t.Context(), memory.Transport(srv, memory.AsIdentity(id)), client.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		got, err := c.ReadResource(t.Context(), "shelf://note")
		if err != nil {
			t.Fatal(err)
		}
		return got[0].Text
	}
	ann, bob := &sake.Identity{Subject: "ann"}, &sake.Identity{Subject: "bob"}
	for _, tc := range []struct {
		id   *sake.Identity
		want string
	}{{ann, "note for ann"}, {bob, "note for bob"}, {ann, "note for ann"}, {&sake.Identity{Subject: "bob"}, "note for bob"}} {
		if got := read(tc.id); got != tc.want {
			t.Fatalf("%s read %q, want %q", tc.id.Subject, got, tc.want)
		}
	}
	if n := g.count("resources/read shelf://note"); n != 2 {
		t.Fatalf("the note reached the server %d times, want 2 (once per identity)", n)
	}
}

// Two stdio servers are two servers: a shared cache never mixes them.
func TestCacheStreamsNeverShare(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
	cache := client.NewCache()
	for range 2 {
		c := connect(t, transports[2], srv, client.WithCache(cache))
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if n := g.count("tools/list"); n != 2 {
		t.Fatalf("tools/list reached the servers %d times, want 2", n)
	}
}

// The cache holds at most CacheMaxEntries entries and CacheMaxBytes bytes,
// pushing out the least recently used; a result over a quarter of the
// bytes is not kept.
func TestCacheBounds(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
	cache := client.NewCache(client.CacheMaxEntries(2))
	c := connect(t, transports[0], srv, client.WithCache(cache))
	read := func(id string) {
		t.Helper()
		if _, err := c.ReadResource(t.Context(), "shelf://items/"+id); err != nil {
			t.Fatal(err)
		}
	}
	read("a")
	read("b")
	read("a") // a is now the most recently used
	read("c") // pushes out b
	if cache.Len() != 2 {
		t.Fatalf("cache holds %d entries, want 2", cache.Len())
	}
	read("a")
	read("b")
	if g.count("resources/read shelf://items/a") != 1 || g.count("resources/read shelf://items/b") != 2 {
		t.Fatalf("reads of a: %d (want 1), of b: %d (want 2)", g.count("resources/read shelf://items/a"), g.count("resources/read shelf://items/b"))
	}

	small := client.NewCache(client.CacheMaxBytes(1024))
	c2 := connect(t, transports[0], srv, client.WithCache(small))
	if _, err := c2.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if small.Len() != 0 || small.Bytes() != 0 {
		t.Fatalf("a list over a quarter of the bound was kept: %d entries, %d bytes", small.Len(), small.Bytes())
	}
	cache.Clear()
	if cache.Len() != 0 || cache.Bytes() != 0 {
		t.Fatalf("after Clear: %d entries, %d bytes", cache.Len(), cache.Bytes())
	}
}

// A cached ListTools still teaches the client which tools may be retried.
func TestCachedListTeachesRetries(t *testing.T) {
	t.Parallel()
	g := newGate()
	srv := newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "public"))
	cache := client.NewCache()
	s := &sleeps{}
	first := connect(t, transports[0], srv, client.WithCache(cache))
	if _, err := first.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := connect(t, transports[0], srv, client.WithCache(cache), client.Retry(client.RetryPolicy{Sleep: s.sleep}))
	if _, err := c.ListTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	g.failFirst("tools/call lookup", 1)
	if _, err := c.CallTool(context.WithoutCancel(t.Context()), "lookup", nil); err != nil {
		t.Fatal(err)
	}
	if g.count("tools/list") != 1 || g.count("tools/call lookup") != 2 {
		t.Fatalf("tools/list %d (want 1), lookup %d (want 2)", g.count("tools/list"), g.count("tools/call lookup"))
	}
}

// rotating is an Authorizer whose token changes at every request.
type rotating struct{ n atomic.Int64 }

func (r *rotating) Authorize(_ context.Context, req *http.Request) error {
	req.Header.Set("Authorization", "Bearer t"+strconv.FormatInt(r.n.Add(1), 10))
	return nil
}

func (r *rotating) Challenged(context.Context, *http.Request, *http.Response, int) (bool, error) {
	return false, nil
}

// A private result whose credential changed during the call is not kept.
func TestCacheDoesNotKeepAcrossACredentialChange(t *testing.T) {
	t.Parallel()
	g := newGate()
	h := plug.New(newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "private")))
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	cache := client.NewCache()
	c, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil, client.WithAuthorizer(&rotating{})), client.WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 2 {
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if n := g.count("tools/list"); n != 2 || cache.Len() != 0 {
		t.Fatalf("tools/list reached the server %d times (want 2), cache holds %d", n, cache.Len())
	}
}

// bearerTransport sets Authorization as it sends, the way
// golang.org/x/oauth2's Transport does: on a clone of the request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// A credential the *http.Client's transport adds keys private entries as
// the credential the client gave itself does: the second person's list is
// never the first one's, a client with the same credential shares its
// entries, and a client's own second list is served from the cache.
func TestCachePrivateEntriesPerCredentialOfTheTransport(t *testing.T) {
	t.Parallel()
	g := newGate()
	h := plug.New(newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "private")))
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	cache := client.NewCache()
	connect := func(token string) *client.Client {
		t.Helper()
		hc := &http.Client{Transport: &bearerTransport{token: token, base: ts.Client().Transport}}
		c, err := client.Connect(t.Context(), client.HTTP(ts.URL, hc), client.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	list := func(c *client.Client) {
		t.Helper()
		if _, err := c.ListTools(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ann, bob, ann2 := connect("ann"), connect("bob"), connect("ann")
	list(ann)
	list(ann)
	if n := g.count("tools/list"); n != 1 {
		t.Fatalf("ann's second list reached the server: %d lists", n)
	}
	list(bob)
	if n := g.count("tools/list"); n != 2 {
		t.Fatalf("bob got ann's private list from the cache: %d lists reached the server, want 2", n)
	}
	list(ann2)
	if n := g.count("tools/list"); n != 2 {
		t.Fatalf("a second client with ann's credential did not share her entry: %d lists", n)
	}
}

// A cookie jar's cookies are a credential too: clients whose jars hold
// different sessions never share private entries.
func TestCachePrivateEntriesPerCookieJar(t *testing.T) {
	t.Parallel()
	g := newGate()
	h := plug.New(newShelf(t, g, sake.CacheHints(time.Minute, time.Minute, "private")))
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	cache := client.NewCache()
	list := func(session string) {
		t.Helper()
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: session}})
		hc := &http.Client{Transport: ts.Client().Transport, Jar: jar}
		c, err := client.Connect(t.Context(), client.HTTP(ts.URL, hc), client.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for range 2 {
			if _, err := c.ListTools(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	list("ann")
	list("bob")
	if n := g.count("tools/list"); n != 2 {
		t.Fatalf("tools/list reached the server %d times, want 2 (one per session, each list's second call from the cache)", n)
	}
}
