package client_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

func TestRootsChanged(t *testing.T) {
	each(t, func(t *testing.T, tr transport, era protocol.Era, opts []client.Option) {
		srv, _ := newKitServer(t)
		var mu sync.Mutex
		var sent []string
		watch := client.OnMessage(func(out bool, msg []byte) {
			if out {
				mu.Lock()
				sent = append(sent, string(msg))
				mu.Unlock()
			}
		})
		changed := func() int {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, m := range sent {
				if strings.Contains(m, `"method":"notifications/roots/list_changed"`) {
					n++
				}
			}
			return n
		}

		// Without roots there is nothing to announce: an error, and
		// nothing sent.
		bare := connect(t, tr, srv, append(opts, watch)...)
		if err := bare.RootsChanged(t.Context()); err == nil || !strings.Contains(err.Error(), "Roots or OnRoots") {
			t.Fatalf("RootsChanged without roots: %v", err)
		}
		if changed() != 0 {
			t.Fatal("a roots/list_changed went out without roots")
		}

		c := connect(t, tr, srv, append(opts, watch, client.Roots(protocol.Root{URI: "file:///w"}),
			client.Capabilities(protocol.ClientCapabilities{Roots: &protocol.RootsCapability{ListChanged: true}}))...)
		if err := c.RootsChanged(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := 1
		if era == protocol.EraModern {
			want = 0 // roots travel within each request that needs them
		}
		if got := changed(); got != want {
			t.Fatalf("%d roots/list_changed sent, want %d", got, want)
		}
		// The server takes it in its stride.
		if err := c.Ping(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}
