package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
)

// shelf is the server of the retry and cache tests: tools that may or
// may not run twice, and resources whose text names their reader.
type shelf struct{}

func (shelf) Declare(d *sake.Declarations) {
	d.Tool("Lookup").Description("Reads the shelf.").ReadOnly()
	d.Tool("Put").Description("Sets an item, idempotently.").Idempotent()
	d.Tool("Order").Description("Orders one more item.")
	d.Resource("Note", "shelf://note").Description("A note for its reader.")
	d.ResourceTemplate("Item", "shelf://items/{id}").Description("One item.")
	d.Prompt("Greet").Description("Greets someone.")
}

func (shelf) Lookup(*sake.Context) (string, error) { return "looked", nil }
func (shelf) Put(*sake.Context) (string, error)    { return "put", nil }
func (shelf) Order(*sake.Context) (string, error)  { return "ordered", nil }

func (shelf) Note(ctx *sake.Context) (string, error) {
	if id := ctx.Identity(); id != nil {
		return "note for " + id.Subject, nil
	}
	return "note for nobody", nil
}

func (shelf) Item(_ *sake.Context, v itemVars) (string, error) {
	if v.ID == "missing" {
		return "", sake.ErrResourceNotFound
	}
	return "item " + v.ID, nil
}

func (shelf) Greet(_ *sake.Context, a greetArgs) (string, error) { return "Hello, " + a.Who, nil }

// gate counts the requests that reach the server, by method (and, for
// tools/call and resources/read, by name: "tools/call lookup"), and fails
// the first ones of a key with the error fail returns.
type gate struct {
	mu    sync.Mutex
	seen  map[string]int
	fails map[string]int
	fail  func() error
	// hold, when set, makes each tools/list wait for it to close once it
	// told entered.
	hold    chan struct{}
	entered chan struct{}
}

func newGate() *gate {
	return &gate{seen: map[string]int{}, fails: map[string]int{},
		fail: func() error { return sake.RateLimited("shelf", 1200*time.Millisecond) }}
}

// failFirst makes the first n requests of key fail.
func (g *gate) failFirst(key string, n int) {
	g.mu.Lock()
	g.fails[key] = n
	g.mu.Unlock()
}

func (g *gate) count(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seen[key]
}

func (g *gate) middleware(next sake.Handler) sake.Handler {
	return func(ctx context.Context, req *sake.Request) (any, error) {
		key := req.Method
		switch req.Method {
		case "tools/call", "prompts/get":
			key += " " + req.Params.Name
		case "resources/read":
			key += " " + req.Params.URI
		}
		g.mu.Lock()
		g.seen[key]++
		failing := g.fails[key] > 0
		if failing {
			g.fails[key]--
		}
		hold, entered := g.hold, g.entered
		g.mu.Unlock()
		if failing {
			return nil, g.fail()
		}
		if hold != nil && req.Method == "tools/list" {
			entered <- struct{}{}
			<-hold
		}
		return next(ctx, req)
	}
}

// newShelf builds the shelf's server behind g.
func newShelf(t testing.TB, g *gate, opts ...sake.Option) *sake.Server {
	t.Helper()
	srv, err := sake.New(shelf{}, append([]sake.Option{sake.Use(g.middleware)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// sleeps records the waits of a RetryPolicy, which returns at once.
type sleeps struct {
	mu  sync.Mutex
	got []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.got = append(s.got, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.got...)
}
