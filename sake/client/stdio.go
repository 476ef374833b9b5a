package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// Stream connects to a server that reads newline-delimited JSON-RPC from
// w and writes it to r: the stdio framing over any pair of streams (a
// pipe, a socket). Close closes w (and r and w when they are io.Closers).
func Stream(r io.Reader, w io.Writer) Transport {
	return &streamTransport{r: r, w: w}
}

// Command starts cmd as the server and talks to it over its standard
// input and output. Its standard error goes line by line to the client's
// Logger (unless cmd.Stderr is already set). Close closes its input, waits
// for it to exit (ShutdownTimeout, default 5s), then terminates it and,
// if need be, kills it.
func Command(cmd *exec.Cmd, opts ...CommandOption) Transport {
	t := &streamTransport{cmd: cmd, shutdown: 5 * time.Second}
	for _, opt := range opts {
		opt(t)
	}
	return t
}

// CommandOption configures a command transport.
type CommandOption func(*streamTransport)

// ShutdownTimeout is how long Close waits for the process after closing
// its input, and again after terminating it, before killing it.
func ShutdownTimeout(d time.Duration) CommandOption {
	return func(t *streamTransport) {
		if d > 0 {
			t.shutdown = d
		}
	}
}

type streamTransport struct {
	r        io.Reader
	w        io.Writer
	cmd      *exec.Cmd
	shutdown time.Duration

	incoming func(context.Context, []byte)
	max      int64
	logger   interface{ Warn(string, ...any) }
	wmu      sync.Mutex
	// The write queue (see write), under wmu: the messages to write, the
	// buffer of the last write kept for reuse, whether a writer is
	// writing, and the error that ended writing for good.
	queue, spare []byte
	writing      bool
	writeErr     error
	// corked says the queue is left for a flush at the end of the
	// caller's burst (writeLater).
	corked bool
	// inFlight counts the calls waiting for their answers: a writer
	// gathers the others' messages only when there are others.
	inFlight atomic.Int32

	mu      sync.Mutex
	pending map[int64]chan []byte
	// async holds the calls whose answer is handed to a function rather
	// than awaited (roundTripAsync), by request id.
	async   map[int64]*asyncCall
	closed  bool
	stopped bool // reading has stopped: readErr is set
	// The burst of answers being read (lines read together), what their
	// calls leave to its end, and afterAnswers bound once: only the
	// reading goroutine touches them.
	moreAnswers  bool
	answersLater []func()
	answersBurst func(func()) bool
	readErr      error
	done         chan struct{} // closed when reading stops
	exited       chan struct{} // closed when the command has exited
	exitErr      error         // the command's Wait error, set before exited is closed
	stderr       chan struct{}
	// logCtx is the context of the one request in flight that asked for
	// log messages with a per-request level, or nil.
	logCtx context.Context
	// forwarded holds the contexts of the forwarded calls in flight (a
	// proxy's), by request id: a server's request names no call, so it
	// is the call's when exactly one is in flight (see callOf).
	forwarded map[int64]context.Context
}

// callOf is the context a request of the server is answered in: that of
// the one forwarded call in flight, or nil when none or several are (the
// request is then outside any call: a proxy refuses to guess its caller).
// It is not asked for roots/list, which is outside any call over stdio.
func (t *streamTransport) callOf() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.forwarded) != 1 {
		return nil
	}
	for _, ctx := range t.forwarded {
		return ctx
	}
	return nil
}

// takeLogSlot lets the request of ctx ask for log messages, if no other
// request in flight asks for them: a log message on stdio does not name
// its request, so only one request at a time may receive them, and it
// receives every one written while it runs. ok is false when another
// request holds the slot: the request must then go without log messages.
// release gives the slot back when the request is done.
func (t *streamTransport) takeLogSlot(ctx context.Context) (release func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.logCtx != nil {
		return func() {}, false
	}
	t.logCtx = ctx
	return func() {
		t.mu.Lock()
		if t.logCtx == ctx {
			t.logCtx = nil
		}
		t.mu.Unlock()
	}, true
}

func (t *streamTransport) bind(_ context.Context, incoming func(context.Context, []byte), o *options) error {
	t.incoming, t.max, t.logger = incoming, o.maxMessage, o.logger
	t.pending = map[int64]chan []byte{}
	t.async = map[int64]*asyncCall{}
	t.answersBurst = t.afterAnswers
	t.forwarded = map[int64]context.Context{}
	t.done = make(chan struct{})
	if t.cmd != nil {
		in, err := t.cmd.StdinPipe()
		if err != nil {
			return fmt.Errorf("client: %w", err)
		}
		out, err := t.cmd.StdoutPipe()
		if err != nil {
			return fmt.Errorf("client: %w", err)
		}
		var errPipe io.ReadCloser
		if t.cmd.Stderr == nil {
			if errPipe, err = t.cmd.StderrPipe(); err != nil {
				return fmt.Errorf("client: %w", err)
			}
		}
		if err := t.cmd.Start(); err != nil {
			return fmt.Errorf("client: starting the server: %w", err)
		}
		t.r, t.w = out, in
		t.exited = make(chan struct{})
		if errPipe != nil {
			t.stderr = make(chan struct{})
			go func() {
				defer close(t.stderr)
				sc := bufio.NewScanner(errPipe)
				sc.Buffer(make([]byte, 4096), 64<<10)
				for sc.Scan() {
					o.logger.Info("server stderr", "line", sc.Text(), "command", t.cmd.Path)
				}
			}()
		}
	}
	if t.cmd != nil {
		// The process is waited for as soon as its output ends, so that
		// its exit is known at once (Client.Lost) and it is never left a
		// zombie.
		go func() {
			<-t.done
			if t.stderr != nil {
				<-t.stderr
			}
			err := t.cmd.Wait()
			t.mu.Lock()
			t.exitErr = err
			t.mu.Unlock()
			close(t.exited)
		}()
	}
	go t.read()
	return nil
}

// read demultiplexes the server's output: responses go to the calls
// waiting for them, everything else to incoming.
func (t *streamTransport) read() {
	br := bufio.NewReaderSize(t.r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(br, t.max)
		if err != nil {
			break
		}
		t.moreAnswers = lineBuffered(br)
		t.handleLine(line)
		if !t.moreAnswers && len(t.answersLater) > 0 {
			t.endAnswers()
		}
	}
	t.moreAnswers = false
	t.endAnswers()
	t.mu.Lock()
	if errors.Is(err, io.EOF) {
		err = errors.New("client: the server closed its output")
	}
	t.readErr, t.stopped = err, true
	calls := t.async
	t.async = map[int64]*asyncCall{}
	t.mu.Unlock()
	// The calls learn the end once it is known (Client.Lost).
	close(t.done)
	for _, ac := range calls {
		ac.stop()
		ac.fn(nil, err, nil)
	}
}

// handleLine routes one line of the server's output: a response to the
// call waiting for it, anything else to incoming.
func (t *streamTransport) handleLine(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	peek, err := protocol.Peek(line)
	if err != nil {
		t.logger.Warn("client: the server wrote a line that is not JSON", "line", string(line[:min(len(line), 200)]))
		return
	}
	if peek.Kind() == protocol.KindResponse {
		var ch chan []byte
		var ac *asyncCall
		if id, ok := parseID(peek.ID); ok {
			t.mu.Lock()
			if ch = t.pending[id]; ch != nil {
				delete(t.pending, id)
			} else if ac = t.async[id]; ac != nil {
				delete(t.async, id)
			}
			delete(t.forwarded, id)
			t.mu.Unlock()
		}
		if ch != nil {
			ch <- line
		} else if ac != nil {
			ac.stop()
			ac.fn(line, nil, t.answersBurst)
		}
		return
	}
	var ctx context.Context
	switch {
	case peek.Kind() == protocol.KindNotification && peek.Method == "notifications/message":
		// A log message belongs to the one request that asked for logs
		// (see takeLogSlot); stdio does not say which request it is.
		t.mu.Lock()
		ctx = t.logCtx
		t.mu.Unlock()
		if ctx == nil {
			// A handshake-era session's log message, like its
			// questions, belongs to the one forwarded call in flight;
			// else to no call (the session's own).
			ctx = t.callOf()
		}
	case peek.Kind() == protocol.KindRequest && peek.Method != "roots/list":
		// Nor does a request of the server (a session's question).
		// roots/list never belongs to a call: the roots are the
		// session's, and a server asks for them when it likes (after
		// the handshake, say), so that the one call in flight then may
		// well be another caller's.
		ctx = t.callOf()
	}
	t.incoming(ctx, line)
}

// lineBuffered reports whether a whole line waits in br.
func lineBuffered(br *bufio.Reader) bool {
	n := br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// afterAnswers is what the reading goroutine lends the asynchronous calls
// it answers (sake/transport.BurstReader.AfterBurst): f runs once the
// answers read together have been handled. It reports false when no
// other answer waits. Only the reading goroutine calls it.
func (t *streamTransport) afterAnswers(f func()) bool {
	if !t.moreAnswers {
		return false
	}
	t.answersLater = append(t.answersLater, f)
	return true
}

// endAnswers runs what the answers of a burst left to its end.
func (t *streamTransport) endAnswers() {
	fs := t.answersLater
	t.answersLater = fs[:0]
	for i, f := range fs {
		f()
		fs[i] = nil
	}
}

// readLine reads one line, refusing lines longer than max.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max {
			// Skip the rest of the line: it cannot be a message we take.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return nil, &tooLargeError{what: "a message from the server", max: max}
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && !(err == io.EOF && len(line) > 0) {
			return nil, err
		}
		return line, nil
	}
}

func (t *streamTransport) write(b []byte) error {
	// Group commit: a message is queued; the writer that finds no write
	// under way writes the queue, and goes on writing what the others
	// queued meanwhile, in one system call each time. So concurrent
	// calls share their writes, no goroutine waits for another's write to
	// finish, and no message is copied but into the queue.
	if err := t.enqueue(b); err != nil {
		return err
	}
	if t.writing {
		t.wmu.Unlock()
		return nil
	}
	t.writing = true
	if t.inFlight.Load() > 1 {
		t.gather()
	}
	err := t.writeQueue()
	t.wmu.Unlock()
	return err
}

// enqueue queues b and its newline. It returns with t.wmu held when it
// returns nil, and not held otherwise (a newline in b, or writing failed
// for good).
func (t *streamTransport) enqueue(b []byte) error {
	if bytes.IndexByte(b, '\n') >= 0 {
		return errors.New("client: a message for stdio must not contain a newline")
	}
	t.wmu.Lock()
	if t.writeErr != nil {
		err := t.writeErr
		t.wmu.Unlock()
		return err
	}
	t.queue = append(append(t.queue, b...), '\n')
	return nil
}

// writeQueue writes the queue until it is empty, as the one writer:
// t.writing is set and t.wmu held, and held again on return, when
// t.writing is cleared.
func (t *streamTransport) writeQueue() error {
	var err error
	for len(t.queue) > 0 && err == nil {
		buf := t.queue
		t.queue, t.spare = t.spare[:0], nil
		t.wmu.Unlock()
		_, err = t.w.Write(buf)
		t.wmu.Lock()
		if cap(buf) <= maxQueueReuse {
			t.spare = buf
		}
	}
	if err != nil {
		err = fmt.Errorf("client: writing to the server: %w", err)
		t.writeErr = err
		t.queue = nil
	}
	t.writing = false
	return err
}

// gather lets the goroutines that are ready to run queue their messages
// before the writer writes, so that a burst of calls (a proxy's callers
// woken together) costs one system call, and the server reads its
// requests together and answers them together: the writer yields once.
// (Yielding again while the queue grows gathered no more in the gateway
// benchmark, and each yield costs the scheduler's lock and may wake
// another thread.) It is called only while other calls are in flight: a
// lone call has nobody to wait for. t.wmu is held, and held again on
// return.
func (t *streamTransport) gather() {
	t.wmu.Unlock()
	runtime.Gosched()
	t.wmu.Lock()
}

// maxQueueReuse bounds the write queue's buffer kept for the next
// writes: 1 MiB.
const maxQueueReuse = 1 << 20

func (t *streamTransport) roundTrip(ctx context.Context, m *message) ([]byte, error) {
	t.inFlight.Add(1)
	defer t.inFlight.Add(-1)
	key := m.id
	ch := answerChans.Get().(chan []byte)
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		answerChans.Put(ch)
		return nil, ErrClosed
	}
	t.pending[key] = ch
	if forwardOf(ctx) != nil {
		t.forwarded[key] = ctx
	}
	t.mu.Unlock()
	if err := t.write(m.body); err != nil {
		t.forget(key)
		return nil, err
	}
	select {
	case body := <-ch:
		// The answer came, and its reader forgot the channel: nobody
		// else sends on it.
		answerChans.Put(ch)
		return body, nil
	case <-ctx.Done():
		// The reader may still send on ch: it is not reused.
		t.forget(key)
		// Both eras cancel over stdio with notifications/cancelled.
		_ = t.write(cancelled(m.id, "the caller cancelled the call"))
		return nil, ctx.Err()
	case <-t.done:
		select {
		case body := <-ch:
			return body, nil
		default:
		}
		t.forget(key)
		t.mu.Lock()
		err := t.readErr
		t.mu.Unlock()
		return nil, err
	}
}

// forget stops waiting for the answer to the request id.
func (t *streamTransport) forget(id int64) {
	t.mu.Lock()
	delete(t.pending, id)
	delete(t.forwarded, id)
	t.mu.Unlock()
}

// answerChans holds the channels a call waits on for its answer: one is
// put back only once its answer was received, when no sender is left.
var answerChans = sync.Pool{New: func() any { return make(chan []byte, 1) }}

// parseID reads a response's id as the client writes its own: a
// non-negative integer. Any other id answers no request of the client's.
func parseID(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	var id int64
	for _, ch := range raw {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		id = id*10 + int64(ch-'0')
	}
	return id, true
}

func (t *streamTransport) send(_ context.Context, m *message) error {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return t.write(m.body)
}

func (t *streamTransport) established(protocol.Era, string) {}

// lost is closed when the server's output has ended: the connection is
// gone for good.
func (t *streamTransport) lost() <-chan struct{} { return t.done }

// lostErr says why the connection is gone: the command's exit, when it
// has exited, else the end of its output.
func (t *streamTransport) lostErr() error {
	if t.exited != nil {
		// A server whose output ended is usually exiting: give it a moment
		// to, so that the reason is its exit status.
		timer := time.NewTimer(exitGrace)
		defer timer.Stop()
		select {
		case <-t.exited:
			t.mu.Lock()
			err := t.exitErr
			t.mu.Unlock()
			if err == nil {
				return errors.New("client: the server exited")
			}
			return fmt.Errorf("client: the server exited: %w", err)
		case <-timer.C:
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readErr
}

// exitGrace is how long lostErr waits for a command whose output ended to
// exit.
const exitGrace = 250 * time.Millisecond

func (t *streamTransport) ready(context.Context) error { return nil }

func (t *streamTransport) close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	var err error
	if c, ok := t.w.(io.Closer); ok {
		err = c.Close()
	}
	if t.cmd == nil {
		if c, ok := t.r.(io.Closer); ok && any(c) != any(t.w) {
			_ = c.Close()
		}
		return err
	}
	timer := time.NewTimer(t.shutdown)
	defer timer.Stop()
	select {
	case <-t.exited:
		return nil
	case <-timer.C:
	}
	_ = t.cmd.Process.Signal(syscall.SIGTERM)
	timer.Reset(t.shutdown)
	select {
	case <-t.exited:
		return nil
	case <-timer.C:
	}
	_ = t.cmd.Process.Kill()
	<-t.exited
	return errors.New("client: the server process did not exit; it was killed")
}
