package sake_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// claimer is a server that takes subscriptions to the unlisted URIs of
// its scheme and remembers those it holds.
type claimer struct {
	srv    *sake.Server
	mu     sync.Mutex
	held   map[string]int
	closed chan string
}

func newClaimer(t *testing.T, scheme string, opts ...sake.Option) *claimer {
	t.Helper()
	c := &claimer{held: map[string]int{}, closed: make(chan string, 8)}
	opts = append(opts, sake.SubscribeUnlisted(func(_ context.Context, _ *sake.Request, uri string) (func(), error) {
		if len(uri) < len(scheme) || uri[:len(scheme)] != scheme {
			return nil, sake.NewError(sake.CodeInvalidParams, "Invalid params: not mine: %s", uri)
		}
		c.mu.Lock()
		c.held[uri]++
		c.mu.Unlock()
		return func() {
			c.mu.Lock()
			c.held[uri]--
			c.mu.Unlock()
			c.closed <- uri
		}, nil
	}))
	c.srv = sake.MustNew(nil, opts...)
	if err := c.srv.AddResource(sake.NewResource(scheme+"listed", func(*sake.Context) (string, error) { return "x", nil })); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *claimer) holds(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[uri]
}

// A mounted server's SubscribeUnlisted takes the subscriptions to URIs
// under its namespace, after the parent's and the child's default
// requirements; a merged server (empty namespace) cannot claim a URI in
// another mount's namespace; a server that takes none refuses with
// -32602; a session that ends releases its claims.
func TestSubscribeUnlistedThroughMounts(t *testing.T) {
	t.Parallel()
	named := newClaimer(t, "watch://", sake.RequireScopes("watch"))
	merged := newClaimer(t, "other://")
	parent := sake.MustNew(nil)
	if err := parent.Mount("up", named.srv); err != nil {
		t.Fatal(err)
	}
	if err := parent.Mount("", merged.srv); err != nil {
		t.Fatal(err)
	}
	c := saketest.Connect(t, parent, saketest.Legacy(), saketest.Scopes("watch"))
	var e *sake.Error
	if _, err := c.Request("resources/subscribe", map[string]any{"uri": "up+watch://a"}); err != nil {
		t.Fatalf("subscribe to a claimed URI = %v", err)
	}
	if named.holds("watch://a") != 1 {
		t.Fatalf("the mounted server holds %v", named.held)
	}
	if _, err := c.Request("resources/subscribe", map[string]any{"uri": "other://b"}); err != nil || merged.holds("other://b") != 1 {
		t.Fatalf("subscribe to a merged server's claimed URI = %v (held %v)", err, merged.held)
	}
	if _, err := c.Request("resources/subscribe", map[string]any{"uri": "up+other://b"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Errorf("a URI in another mount's namespace = %v, want -32602", err)
	}
	if merged.holds("up+other://b") != 0 || named.holds("other://b") != 0 {
		t.Errorf("claims went astray: %v %v", named.held, merged.held)
	}
	if _, err := c.Request("resources/subscribe", map[string]any{"uri": "up+watch://listed"}); err != nil {
		t.Errorf("a listed resource = %v", err)
	}
	if named.holds("watch://listed") != 0 {
		t.Error("a listed resource was claimed")
	}
	// The child's default requirement holds for its unlisted URIs.
	guest := saketest.Connect(t, parent, saketest.Legacy(), saketest.Scopes())
	if _, err := guest.Request("resources/subscribe", map[string]any{"uri": "up+watch://a"}); !errors.As(err, new(*protocol.InsufficientScopeError)) {
		t.Errorf("a caller without the child's scope = %v, want insufficient scope", err)
	}
	if named.holds("watch://a") != 1 {
		t.Errorf("the refused caller changed the claims: %v", named.held)
	}
	if _, err := c.Request("resources/unsubscribe", map[string]any{"uri": "up+watch://a"}); err != nil {
		t.Fatal(err)
	}
	if uri := <-named.closed; uri != "watch://a" || named.holds("watch://a") != 0 {
		t.Errorf("unsubscribe released %q, held %v", uri, named.held)
	}
	c.Close()
	if uri := <-merged.closed; uri != "other://b" {
		t.Errorf("the session's end released %q", uri)
	}

	plain := sake.MustNew(nil)
	if err := plain.AddResource(sake.NewResource("plain://x", func(*sake.Context) (string, error) { return "x", nil })); err != nil {
		t.Fatal(err)
	}
	pc := saketest.Connect(t, plain, saketest.Legacy())
	if _, err := pc.Request("resources/subscribe", map[string]any{"uri": "plain://y"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Errorf("an unlisted URI of a server that claims none = %v, want -32602", err)
	}
}
