package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/client/memory"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// unlistedRemote is a server that lists one resource and takes
// subscriptions to those it does not list under test://watched (such as
// test://watched-resource, as @modelcontextprotocol/server-everything
// does): it counts the subscriptions it holds.
type unlistedRemote struct {
	srv  *sake.Server
	mu   sync.Mutex
	held int
	// ended is told each time a subscription ends.
	ended chan struct{}
}

func newUnlistedRemote(t *testing.T, opts ...sake.Option) *unlistedRemote {
	t.Helper()
	r := &unlistedRemote{ended: make(chan struct{}, 16)}
	srv, err := sake.New(nil, append(opts, sake.SubscribeUnlisted(func(_ context.Context, _ *sake.Request, uri string) (func(), error) {
		if !strings.HasPrefix(uri, "test://watched") {
			return nil, sake.NewError(sake.CodeInvalidParams, "Invalid params: no such resource")
		}
		r.mu.Lock()
		r.held++
		r.mu.Unlock()
		return func() {
			r.mu.Lock()
			r.held--
			r.mu.Unlock()
			select {
			case r.ended <- struct{}{}:
			default: // nobody waits for this one
			}
		}, nil
	}))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AddResource(sake.NewResource("test://listed", func(*sake.Context) (string, error) { return "listed", nil })); err != nil {
		t.Fatal(err)
	}
	r.srv = srv
	return r
}

func (r *unlistedRemote) holds() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// A resource the remote serves without listing it is subscribable
// through the proxy when the remote takes the subscription: its updates
// reach the subscriber, and the last unsubscription ends the remote's.
// One the remote refuses, one the proxy's filter leaves out and one
// asked by a caller who may not read the proxy's resources are refused,
// and the remote is not asked for the last two.
func TestProxySubscribesToUnlistedResources(t *testing.T) {
	t.Parallel()
	for _, remoteEra := range eras {
		t.Run("remote "+remoteEra.Name, func(t *testing.T) {
			t.Parallel()
			up := newUnlistedRemote(t)
			remote, err := client.Connect(t.Context(), memory.Transport(up.srv), append(remoteEra.Opts, client.ForwardQuestions())...)
			if err != nil {
				t.Fatal(err)
			}
			defer remote.Close()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			srv, err := proxy.New(ctx, remote, proxy.FilterResources(func(uri string) bool { return uri != "test://hidden" }),
				proxy.ServerOptions(sake.RequireScopes("read")))
			if err != nil {
				t.Fatal(err)
			}
			updates := make(chan string, 4)
			reader := &protocol.Identity{Subject: "u", FromToken: true, Scopes: []string{"read"}}
			local, err := client.Connect(t.Context(), memory.Transport(srv, memory.AsIdentity(reader)), client.ProtocolVersion(protocol.LegacyVersion),
				client.OnNotification(func(n protocol.Notification) {
					if n.Method == "notifications/resources/updated" {
						updates <- string(n.Params)
					}
				}))
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			second, err := client.Connect(t.Context(), memory.Transport(srv, memory.AsIdentity(reader)), client.ProtocolVersion(protocol.LegacyVersion))
			if err != nil {
				t.Fatal(err)
			}
			defer second.Close()

			for _, c := range []*client.Client{local, second} {
				if _, err := c.Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://watched-resource"}); err != nil {
					t.Fatalf("subscribe through the proxy = %v", err)
				}
			}
			if n := up.holds(); n != 1 {
				t.Fatalf("the remote holds %d subscriptions, want 1 for both subscribers", n)
			}
			up.srv.ResourceUpdated("test://watched-resource")
			select {
			case u := <-updates:
				if u != `{"uri":"test://watched-resource"}` {
					t.Errorf("update = %s", u)
				}
			case <-time.After(waitFor):
				t.Fatal("the update did not come through the proxy")
			}

			var e *sake.Error
			if _, err := local.Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://nowhere"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("subscribe to a URI the remote refuses = %v, want -32602", err)
			}
			if _, err := local.Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://hidden"}); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
				t.Errorf("subscribe to a URI the filter leaves out = %v, want -32602", err)
			}
			stranger, err := client.Connect(t.Context(), memory.Transport(srv, memory.AsIdentity(&protocol.Identity{Subject: "v", FromToken: true})), client.ProtocolVersion(protocol.LegacyVersion))
			if err != nil {
				t.Fatal(err)
			}
			defer stranger.Close()
			if _, err := stranger.Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://watched-resource"}); !errors.As(err, new(*protocol.InsufficientScopeError)) {
				t.Errorf("subscribe without the read scope = %v, want insufficient scope", err)
			}

			if _, err := local.Request(t.Context(), "resources/unsubscribe", map[string]any{"uri": "test://watched-resource"}); err != nil {
				t.Fatal(err)
			}
			if n := up.holds(); n != 1 {
				t.Fatalf("after one of two unsubscribed the remote holds %d, want 1", n)
			}
			second.Close() // its session ends with its subscription
			select {
			case <-up.ended:
			case <-time.After(waitFor):
				t.Fatal("the remote subscription outlived the proxy's subscribers")
			}
			if n := up.holds(); n != 0 {
				t.Errorf("the remote holds %d subscriptions, want none", n)
			}
		})
	}
}

// A 2026-07-28 caller's subscriptions/listen may name a resource the
// remote serves without listing it: the remote is subscribed to while the
// stream lasts, and its updates come on the stream; one the remote
// refuses fails the listen.
func TestProxyListensToUnlistedResources(t *testing.T) {
	t.Parallel()
	up := newUnlistedRemote(t)
	remote, err := client.Connect(t.Context(), memory.Transport(up.srv), client.ForwardQuestions())
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, err := proxy.New(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	local, err := client.Connect(t.Context(), memory.Transport(srv))
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if local.Info().Era != protocol.EraModern {
		t.Fatalf("the caller speaks %v", local.Info().Era)
	}
	var e *sake.Error
	if _, err := local.Listen(t.Context(), client.Filter{Resources: []string{"test://nowhere"}}, nil); !errors.As(err, &e) || e.Code != sake.CodeInvalidParams {
		t.Errorf("a listen naming a URI the remote refuses = %v, want -32602", err)
	}
	updates := make(chan string, 4)
	sub, err := local.Listen(t.Context(), client.Filter{Resources: []string{"test://watched-resource"}}, func(n protocol.Notification) {
		if n.Method == "notifications/resources/updated" {
			updates <- string(n.Params)
		}
	})
	if err != nil {
		t.Fatalf("listen to an unlisted resource = %v", err)
	}
	if n := up.holds(); n != 1 {
		t.Fatalf("the remote holds %d subscriptions, want 1", n)
	}
	up.srv.ResourceUpdated("test://watched-resource")
	select {
	case u := <-updates:
		if !strings.Contains(u, `"uri":"test://watched-resource"`) {
			t.Errorf("update = %s", u)
		}
	case <-time.After(waitFor):
		t.Fatal("the update did not come through the proxy")
	}
	sub.Close()
	select {
	case <-up.ended:
	case <-time.After(waitFor):
		t.Fatal("the remote subscription outlived the stream")
	}
}

// One caller holds at most MaxUnlistedSubscriptionsPerCaller
// subscriptions to unlisted resources through a proxy, over all its
// sessions; another caller still subscribes.
func TestProxyBoundsEachCallersUnlistedSubscriptions(t *testing.T) {
	t.Parallel()
	// The proxy's one session at the remote holds every caller's.
	up := newUnlistedRemote(t, sake.WithLimits(sake.Limits{MaxSubscriptions: 4 * proxy.MaxUnlistedSubscriptionsPerCaller}))
	remote, err := client.Connect(t.Context(), memory.Transport(up.srv), client.ProtocolVersion(protocol.LegacyVersion))
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, err := proxy.New(ctx, remote, proxy.ServerOptions(sake.WithLimits(sake.Limits{MaxSubscriptions: proxy.MaxUnlistedSubscriptionsPerCaller})))
	if err != nil {
		t.Fatal(err)
	}
	session := func(subject string) *client.Client {
		c, err := client.Connect(t.Context(), memory.Transport(srv, memory.AsIdentity(&protocol.Identity{Subject: subject, FromToken: true})), client.ProtocolVersion(protocol.LegacyVersion))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	first, second := session("greedy"), session("greedy")
	for i := range proxy.MaxUnlistedSubscriptionsPerCaller {
		if _, err := first.Request(t.Context(), "resources/subscribe", map[string]any{"uri": fmt.Sprintf("test://watched/%d", i)}); err != nil {
			t.Fatalf("subscription %d = %v", i, err)
		}
	}
	var e *sake.Error
	_, err = second.Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://watched/more"})
	if !errors.As(err, &e) || e.Code != sake.CodeInvalidParams || !strings.Contains(e.Message, "MaxUnlistedSubscriptionsPerCaller") {
		t.Errorf("one more for the same caller = %v, want -32602 naming the bound", err)
	}
	if _, err := session("other").Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://watched/more"}); err != nil {
		t.Errorf("another caller's subscription = %v", err)
	}
	if _, err := first.Request(t.Context(), "resources/unsubscribe", map[string]any{"uri": "test://watched/0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Request(t.Context(), "resources/subscribe", map[string]any{"uri": "test://watched/again"}); err != nil {
		t.Errorf("a subscription after one ended = %v", err)
	}
}
