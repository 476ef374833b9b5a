package middleware_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/middleware"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/saketest"
)

// resultText is the text of the first content block of a tools/call
// answer, or of the first contents of a resources/read answer.
func resultText(t *testing.T, body []byte) string {
	t.Helper()
	var env struct {
		Result struct {
			Content  []struct{ Text string } `json:"content"`
			Contents []struct{ Text string } `json:"contents"`
		} `json:"result"`
		Error *sake.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error != nil {
		t.Fatalf("answer %s: %v %v", body, err, env.Error)
	}
	switch {
	case len(env.Result.Content) > 0:
		return env.Result.Content[0].Text
	case len(env.Result.Contents) > 0:
		return env.Result.Contents[0].Text
	}
	t.Fatalf("answer %s has no text", body)
	return ""
}

// Over HTTP, in both eras: hits and misses, private results per user, an
// anonymous caller's results per address, and invalidation by a resource
// update.
func TestCacheOverHTTP(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			lib := newLibrary()
			srv := cachedLibrary(t, lib, middleware.Cache{})
			h := endpoint(t, srv)
			alice := newHTTPCaller(t, h, era, "192.0.2.1", "alice")
			bob := newHTTPCaller(t, h, era, "192.0.2.1", "bob")
			anon := newHTTPCaller(t, h, era, "192.0.2.7", "")
			lookup := func(c *httpCaller, args string) string {
				r := c.post("tools/call", "lookup", `{"name":"lookup","arguments":`+args+`}`)
				if r.Code != http.StatusOK {
					t.Fatalf("lookup: %d %s", r.Code, r.Body)
				}
				return resultText(t, r.Body.Bytes())
			}
			read := func(c *httpCaller) string {
				r := c.post("resources/read", "test://doc", `{"uri":"test://doc"}`)
				if r.Code != http.StatusOK {
					t.Fatalf("read: %d %s", r.Code, r.Body)
				}
				return resultText(t, r.Body.Bytes())
			}
			a := lookup(alice, `{"q":"go","n":1}`)
			if again := lookup(alice, `{ "n" : 1, "q" : "go" }`); again != a || a != "go for alice, run 1" {
				t.Errorf("alice: %q then %q", a, again)
			}
			if b := lookup(bob, `{"q":"go","n":1}`); b != "go for bob, run 2" {
				t.Errorf("bob got %q: another subject's result", b)
			}
			if x := lookup(anon, `{"q":"go","n":1}`); x != "go for nobody, run 3" || lookup(anon, `{"q":"go","n":1}`) != x {
				t.Errorf("anonymous: %q", x)
			}
			if lookup(alice, `{"q":"go","n":2}`) != "go for alice, run 4" {
				t.Error("other arguments were a hit")
			}
			if d := read(alice); d != "doc for alice, run 1" || read(bob) != d {
				t.Errorf("a public resource: %q", d)
			}
			srv.ResourceUpdated("test://doc")
			if d := read(bob); d != "doc for bob, run 2" {
				t.Errorf("after the update: %q", d)
			}
			// A malformed call is refused as without the cache, and keeps nothing.
			if r := alice.post("tools/call", "lookup", `{"name":"lookup","arguments":{"q":7}}`); !strings.Contains(r.Body.String(), `"isError":true`) && rpcOf(t, r.Body.Bytes()) == nil {
				t.Errorf("bad arguments: %d %s", r.Code, r.Body)
			}
			if n := lib.Runs("lookup"); n != 4 {
				t.Errorf("lookup ran %d times, want 4", n)
			}
		})
	}
}

// Over stdio, in both eras: the second identical call is a hit, an update
// drops the resource, and a tool that is not read-only always runs.
func TestCacheOverStdio(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			lib := newLibrary()
			srv := cachedLibrary(t, lib, middleware.Cache{})
			meta := modernMeta + ","
			var lines []string
			if era != protocol.ModernVersion {
				meta = ""
				lines = append(lines,
					`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+era+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
					`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			msg := func(id int, method, params string) string {
				return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `","params":{` + meta + params + `}}`
			}
			lines = append(lines,
				msg(1, "tools/call", `"name":"lookup","arguments":{"q":"go","n":1}`),
				msg(2, "tools/call", `"name":"lookup","arguments":{"n":1,"q":"go"}`),
				msg(3, "tools/call", `"name":"write","arguments":{"q":"go"}`),
				msg(4, "tools/call", `"name":"write","arguments":{"q":"go"}`),
				msg(5, "resources/read", `"uri":"test://doc"`),
				msg(6, "resources/read", `"uri":"test://doc"`))
			got := serveLines(t, srv, lines...)
			if era != protocol.ModernVersion {
				got = got[1:]
			}
			want := []string{"go for nobody, run 1", "go for nobody, run 1", "wrote go, run 1", "wrote go, run 2", "doc for nobody, run 1", "doc for nobody, run 1"}
			if len(got) != len(want) {
				t.Fatalf("answers: %v", got)
			}
			for i, w := range want {
				if g := resultText(t, []byte(got[i])); g != w {
					t.Errorf("answer %d: %q, want %q", i+1, g, w)
				}
			}
		})
	}
}

// hub is an in-memory broker between servers: what one publishes the
// others hear at once, in order.
type hub struct {
	mu    sync.Mutex
	next  int
	peers map[int]func(sake.Broadcast)
}

type hubBroker struct {
	h  *hub
	id int
}

func (h *hub) broker() *hubBroker {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	return &hubBroker{h: h, id: h.next}
}

func (b *hubBroker) Publish(_ context.Context, bc sake.Broadcast) error {
	b.h.mu.Lock()
	defer b.h.mu.Unlock()
	bc.Origin = nil
	for id, fn := range b.h.peers {
		if id != b.id {
			fn(bc)
		}
	}
	return nil
}

func (b *hubBroker) Listen(fn func(sake.Broadcast)) func() {
	b.h.mu.Lock()
	defer b.h.mu.Unlock()
	if b.h.peers == nil {
		b.h.peers = map[int]func(sake.Broadcast){}
	}
	b.h.peers[b.id] = fn
	return func() {
		b.h.mu.Lock()
		delete(b.h.peers, b.id)
		b.h.mu.Unlock()
	}
}

// replicaPair is two servers on one library, each with its own cache and
// its own broker; settle waits until what from published has reached to.
type replicaPair struct {
	a, b   *sake.Server
	settle func(t *testing.T, from, to *sake.Server)
}

// Two servers on one broker drop each other's stale results: a resource
// update or a tools list change raised on one reaches the other's cache.
func testReplicasInvalidate(t *testing.T, pair func(t *testing.T, lib *library) replicaPair) {
	saketest.BothEras(t, func(t *testing.T, opts ...saketest.Option) {
		lib := newLibrary()
		p := pair(t, lib)
		ca := saketest.Connect(t, p.a, as(opts, "alice")...)
		cb := saketest.Connect(t, p.b, as(opts, "alice")...)
		if d := readText(t, cb, "test://doc"); d != "doc for alice, run 1" || readText(t, cb, "test://doc") != d {
			t.Fatalf("b: %q", d)
		}
		if l := callText(t, cb, "lookup", map[string]any{"q": "go"}); l != "go for alice, run 1" {
			t.Fatalf("b: %q", l)
		}
		if readText(t, ca, "test://doc") != "doc for alice, run 2" {
			t.Fatal("a shared b's cache")
		}
		p.a.ResourceUpdated("test://doc")
		p.settle(t, p.a, p.b)
		if d := readText(t, cb, "test://doc"); d != "doc for alice, run 3" {
			t.Errorf("b after a's update: %q", d)
		}
		if callText(t, cb, "lookup", map[string]any{"q": "go"}) != "go for alice, run 1" {
			t.Error("a resource update dropped b's tool result")
		}
		p.a.NotifyListChanged(sake.ListTools)
		p.settle(t, p.a, p.b)
		if l := callText(t, cb, "lookup", map[string]any{"q": "go"}); l != "go for alice, run 2" {
			t.Errorf("b after a's tools list_changed: %q", l)
		}
		// And the other way.
		// And the other way. a dropped its own result when it raised the
		// update.
		if d := readText(t, ca, "test://doc"); d != "doc for alice, run 4" || readText(t, ca, "test://doc") != d {
			t.Fatalf("a: %q", d)
		}
		p.b.ResourceUpdated("test://doc")
		p.settle(t, p.b, p.a)
		if d := readText(t, ca, "test://doc"); d != "doc for alice, run 5" {
			t.Errorf("a after b's update: %q", d)
		}
	})
}

func TestCacheReplicasInMemory(t *testing.T) {
	testReplicasInvalidate(t, func(t *testing.T, lib *library) replicaPair {
		h := &hub{}
		a := cachedLibrary(t, lib, middleware.Cache{}, sake.Broker(h.broker()))
		b := cachedLibrary(t, lib, middleware.Cache{}, sake.Broker(h.broker()))
		t.Cleanup(func() { _ = a.Shutdown(context.Background()); _ = b.Shutdown(context.Background()) })
		return replicaPair{a: a, b: b, settle: func(*testing.T, *sake.Server, *sake.Server) {}} // the hub delivers at once
	})
}
