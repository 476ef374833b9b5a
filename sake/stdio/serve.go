package stdio

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sakemcp/sake-go/sake"
)

// Serve reads newline-delimited JSON-RPC messages from r, has srv handle
// them, and writes responses and notifications to w, one per line.
//
// It returns when:
//   - r ends: reading stops, the requests still running finish and their
//     responses are written, and Serve returns nil (or the read error, if
//     the input failed rather than ended); only the requests that cannot
//     finish without the client are cancelled (see the package
//     documentation);
//   - ctx is cancelled: the running requests are cancelled and their
//     late results dropped, and Serve returns ctx.Err();
//   - a write to w fails: the running requests are cancelled, since
//     nobody can receive their results, and Serve returns that error.
//
// Serve returns only after every goroutine it started has ended. When it
// stops for a reason other than the end of the input, it interrupts a
// pending read by setting a read deadline if r has SetReadDeadline (a
// net.Conn, an *os.File on a pollable descriptor), and clears it again
// before returning; on any other reader it returns once the pending Read
// does, for example when the other end closes it. Likewise, on
// cancellation a write blocked in w is interrupted with a write deadline
// when w supports one.
//
// The legacy session an initialize opens lives as long as the call, and
// is closed when Serve returns.
func Serve(ctx context.Context, srv *sake.Server, r io.Reader, w io.Writer, opts ...Option) error {
	cn := newConn(ctx, srv, r, w, newConfig(opts))
	return cn.serve()
}

// ServeStdio serves srv on os.Stdin and os.Stdout, as an MCP server that
// a client started as a subprocess. It stops when the input ends (the
// client's way to shut the server down) and on SIGINT or SIGTERM; in both
// cases it returns nil once the requests have finished or been
// cancelled. A second signal while it stops has its default effect.
//
// Logs go to os.Stderr unless Logger says otherwise. Nothing else may
// write to os.Stdout, which carries only protocol messages: tools that
// print for debugging should print to os.Stderr.
//
// A read of os.Stdin cannot be interrupted in general, so after a signal
// ServeStdio returns without waiting for the read in progress: the
// goroutine blocked in it stays until the process exits, and does nothing
// else.
func ServeStdio(srv *sake.Server, opts ...Option) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Once stopping, give the signals back their default effect.
	defer context.AfterFunc(ctx, stop)()
	// A write to a closed stdout raises SIGPIPE, which kills a Go program
	// unless it listens for it; listening makes the write fail with EPIPE
	// instead, and Serve stops in order. Nobody reads the channel: the
	// signal package drops what does not fit.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	opts = append(opts[:len(opts):len(opts)], func(c *config) { c.abandonRead = true })
	err := Serve(ctx, srv, os.Stdin, os.Stdout, opts...)
	if err != nil && err == ctx.Err() {
		return nil // a signal asked for the stop
	}
	return err
}
