package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"time"
)

// stopGrace is how long a server process has to exit after an interrupt
// before it is killed.
const stopGrace = 5 * time.Second

// process is a server program started by sake (conformance, dev).
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // why it exited, once exited is closed
	tail   *tailBuffer
}

// startProcess starts path with args; its standard error goes to stderr
// (when not nil) and its last bytes are kept for error messages.
func startProcess(path string, args []string, stdout, stderr io.Writer) (*process, error) {
	p := &process{cmd: exec.Command(path, args...), exited: make(chan struct{}), tail: &tailBuffer{max: 4096}}
	p.cmd.Stdout = stdout
	p.cmd.Stderr = p.tail
	if stderr != nil {
		p.cmd.Stderr = io.MultiWriter(p.tail, stderr)
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", path, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop interrupts the process and waits for it, killing it after
// stopGrace.
func (p *process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// errExited is wrapped by waitListening's error when the process exited
// before it listened.
var errExited = errors.New("the server exited before it listened")

// waitListening returns once addr accepts connections, or an error when
// the process exits first, ctx ends or wait passes. A server says nothing
// a program can rely on when it listens: this tries to connect, every
// 100ms.
func (p *process) waitListening(ctx context.Context, addr string, wait time.Duration) error {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%w on %s (%v)", errExited, addr, p.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("the server did not listen on %s within %v", addr, wait)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freeAddr returns a loopback address with a port free now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
