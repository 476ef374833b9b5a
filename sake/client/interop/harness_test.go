package interop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/client"
)

// The revisions of the handshake era, newest first.
var legacyRevisions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// repoRoot is the main module's directory, where scripts/interop.sh
// installs the TypeScript server (in .cache/interop).
func repoRoot(t testing.TB) string {
	dir, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// testCtx bounds one test: a server that stops answering fails the test
// instead of hanging it.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testLogger passes the server's standard error and the client's own
// warnings to the test log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log("client log: " + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// process is a server started for a test; it is ended when the test ends.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}

	mu      sync.Mutex
	lines   []string      // its standard output and error, line by line
	changed chan struct{} // closed and replaced when a line arrives
}

// start runs cmd, with its standard output and error read line by line
// into the test log and p.lines, and ends it (interrupt, then kill) when
// the test ends.
func start(t testing.TB, cmd *exec.Cmd) *process {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{}), changed: make(chan struct{})}
	var logMu sync.Mutex
	ended := false
	var readers sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				logMu.Lock()
				if !ended {
					t.Logf("server output (%s): %s", filepath.Base(cmd.Path), sc.Text())
				}
				logMu.Unlock()
				p.mu.Lock()
				p.lines = append(p.lines, sc.Text())
				close(p.changed)
				p.changed = make(chan struct{})
				p.mu.Unlock()
			}
		}()
	}
	go func() {
		defer close(p.done)
		readers.Wait()
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		logMu.Lock()
		ended = true
		logMu.Unlock()
	})
	return p
}

// mark returns how many lines the process has written so far.
func (p *process) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines)
}

// waitLine waits until the process writes, after line since, a line
// containing s.
func (p *process) waitLine(ctx context.Context, since int, s string) error {
	for {
		p.mu.Lock()
		for _, line := range p.lines[min(since, len(p.lines)):] {
			if strings.Contains(line, s) {
				p.mu.Unlock()
				return nil
			}
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-p.done:
			return fmt.Errorf("the server exited before it printed %q", s)
		case <-ctx.Done():
			return fmt.Errorf("the server did not print %q: %w", s, ctx.Err())
		}
	}
}

// waitListening waits until addr accepts connections, for servers that
// announce their address before they listen. Each failed dial is retried
// when the next tick comes, until ctx ends or the process exits.
func (p *process) waitListening(ctx context.Context, addr string) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-tick.C:
		case <-p.done:
			return errors.New("the server exited before it listened on " + addr)
		case <-ctx.Done():
			return fmt.Errorf("nothing listens on %s: %w", addr, ctx.Err())
		}
	}
}

// connect connects a client and closes it when the test ends.
func connect(t testing.TB, tr client.Transport, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Connect(testCtx(t), tr, append([]client.Option{client.Logger(testLogger(t))}, opts...)...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
