package backend_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
)

// hub connects the brokers it makes, as a database would the replicas.
type hub struct {
	mu        sync.Mutex
	listeners map[*hubBroker]func(backend.Broadcast)
}

// hubBroker is one replica's backend.Broker on a hub.
type hubBroker struct{ h *hub }

func (b *hubBroker) Publish(_ context.Context, bc backend.Broadcast) error {
	b.h.mu.Lock()
	var fns []func(backend.Broadcast)
	for other, fn := range b.h.listeners {
		if other != b {
			fns = append(fns, fn)
		}
	}
	b.h.mu.Unlock()
	for _, fn := range fns {
		fn(bc)
	}
	return nil
}

func (b *hubBroker) Listen(fn func(backend.Broadcast)) (stop func()) {
	b.h.mu.Lock()
	defer b.h.mu.Unlock()
	if b.h.listeners == nil {
		b.h.listeners = map[*hubBroker]func(backend.Broadcast){}
	}
	b.h.listeners[b] = fn
	return func() {
		b.h.mu.Lock()
		delete(b.h.listeners, b)
		b.h.mu.Unlock()
	}
}

type App struct{}

// Ping answers pong.
func (App) Ping(*sake.Context, struct{}) (string, error) { return "pong", nil }

// A Broker of one's own: two servers on one hub are two replicas, and a
// list change raised on one reaches the watchers of the other.
func ExampleBroker() {
	h := &hub{}
	a, err := sake.New(App{}, sake.Broker(&hubBroker{h}))
	if err != nil {
		panic(err)
	}
	defer a.Shutdown(context.Background())
	b, err := sake.New(App{}, sake.Broker(&hubBroker{h}))
	if err != nil {
		panic(err)
	}
	defer b.Shutdown(context.Background())

	stop := b.Watch(func(bc sake.Broadcast) { fmt.Println("replica b heard:", bc.List) })
	defer stop()
	a.NotifyListChanged(sake.ListTools)
	// Output: replica b heard: tools
}
