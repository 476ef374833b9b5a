package pgtest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Cutter forwards TCP connections to the database until Cut: then it
// drops those open and refuses new ones, as a stopped database does,
// until Restore. Connect through Addr.
type Cutter struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

// NewCutter forwards to target (host:port) until the test ends.
func NewCutter(t testing.TB, target string) *Cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cutter{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	go c.serve()
	t.Cleanup(func() { ln.Close(); c.Cut() })
	return c
}

// Addr is the address to connect to instead of the database's.
func (c *Cutter) Addr() string { return c.ln.Addr().String() }

func (c *Cutter) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		down := c.down
		c.mu.Unlock()
		if down {
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", c.target)
		if err != nil {
			in.Close()
			continue
		}
		c.mu.Lock()
		c.conns[in], c.conns[out] = struct{}{}, struct{}{}
		c.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); out.Close() }()
		go func() { _, _ = io.Copy(in, out); in.Close() }()
	}
}

// Cut drops every connection and refuses new ones.
func (c *Cutter) Cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = true
	for conn := range c.conns {
		conn.Close()
	}
	clear(c.conns)
}

// Restore lets connections through again.
func (c *Cutter) Restore() {
	c.mu.Lock()
	c.down = false
	c.mu.Unlock()
}
