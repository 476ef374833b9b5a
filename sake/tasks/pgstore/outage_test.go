package pgstore_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/backend"
	"github.com/sakemcp/sake-go/sake/internal/pgtest"
	"github.com/sakemcp/sake-go/sake/tasks"
	"github.com/sakemcp/sake-go/sake/tasks/pgstore"
)

// cutProxy forwards TCP connections to PostgreSQL until cut: then it
// drops every open connection and refuses new ones until restored, as a
// database that cannot be reached.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// A task whose work ends while its replica cannot reach PostgreSQL is
// answered from the final state there, and every replica sees it
// completed once the connection is back.
func TestTaskFinishedWhileDatabaseUnreachable(t *testing.T) {
	t.Parallel()
	raw, schema, _ := pgtest.Schema(t)
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	sa, err := pgstore.New(ctx, pgtest.Pool(t, u.String(), schema), "A")
	if err != nil {
		t.Fatal(err)
	}
	a := tasks.New(tasks.WithStore(sa), tasks.RetryBackoff(10*time.Millisecond, 100*time.Millisecond))
	sb, err := pgstore.New(ctx, pgtest.Pool(t, raw, schema), "B")
	if err != nil {
		t.Fatal(err)
	}
	b := tasks.New(tasks.WithStore(sb))
	t.Cleanup(func() {
		_ = a.Shutdown(context.Background())
		_ = b.Shutdown(context.Background())
	})

	task, ctl, err := a.Create(ctx, "sub:alice", backend.TaskOptions{Tool: "deploy"})
	if err != nil {
		t.Fatal(err)
	}
	proxy.cut()
	result := json.RawMessage(`{"content":[{"type":"text","text":"deployed"}]}`)
	ctl.Complete(result, false)
	if got, err := a.Get(ctx, "sub:alice", task.ID); err != nil || got.Status != sake.TaskCompleted || string(got.Result) != string(result) {
		t.Fatalf("A while cut off: %+v, %v", got, err)
	}
	if a.Unstored() != 1 {
		t.Fatalf("A keeps %d final states, want 1", a.Unstored())
	}
	// B still reads what the database holds.
	if got, err := b.Get(ctx, "sub:alice", task.ID); err != nil || got.Status != sake.TaskWorking {
		t.Fatalf("B while A is cut off: %+v, %v", got, err)
	}

	proxy.restore()
	got, err := b.Wait(ctx, "sub:alice", task.ID, nil)
	if err != nil || got.Status != sake.TaskCompleted || string(got.Result) != string(result) {
		t.Fatalf("B once A is back: %+v, %v", got, err)
	}
}
