package stdio

import (
	"context"
	"io"
	"sync"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/transport"
)

// conn is one run of Serve: the input, the output and the requests in
// between. The server's transport.Conn decodes every message, tracks the
// requests for cancellation and holds the legacy session; the transport
// only frames lines and runs requests.
type conn struct {
	srv *sake.Server
	sc  *transport.Conn
	cfg config
	r   io.Reader
	w   io.Writer
	out *output

	// ctx is Serve's context; base, the parent of every request's
	// context, also ends when a write fails.
	ctx      context.Context
	base     context.Context
	stopBase context.CancelFunc

	pool pool

	// lr is read by one goroutine at a time: the first reading
	// goroutine, then each one the watchdog starts (inline.go). The last
	// one reports the end of the input on readErrc and closes readerDone.
	lr         *lineReader
	readErrc   chan error
	readerDone chan struct{}

	readDeadline, writeDeadline bool // set by Serve, cleared before it returns

	// respondLater is writeLater, bound once.
	respondLater func(body []byte, afterBurst func(func()) bool)

	// The burst being handled: lines already read that follow the one
	// dispatched. What requests leave to its end (AfterBurst) runs
	// before the reader waits for input.
	burstMu    sync.Mutex
	burstOpen  bool
	afterBurst []func()
}

// item is a line read, or the length of a line discarded.
type item struct {
	line    []byte
	tooLong int
}

func newConn(ctx context.Context, srv *sake.Server, r io.Reader, w io.Writer, cfg config) *conn {
	cn := &conn{srv: srv, cfg: cfg, r: r, w: w, ctx: ctx}
	cn.base, cn.stopBase = context.WithCancel(ctx)
	cn.out = newOutput(w, func(error) { cn.stopBase() })
	cn.sc = transport.Connect(srv, "stdio", cfg.identity, stream{cn})
	cn.pool.init(cn)
	cn.respondLater = cn.writeLater
	cn.lr = newLineReader(r, cfg.maxLine)
	cn.readErrc, cn.readerDone = make(chan error, 1), make(chan struct{})
	return cn
}

// serve runs the connection: a goroutine reads and dispatches lines,
// requests run on the workers, and this one waits for the end of the input
// or of the connection.
func (cn *conn) serve() error {
	defer cn.stopBase()
	if err := cn.ctx.Err(); err != nil {
		return err
	}
	readErrc, readerDone := cn.readErrc, cn.readerDone
	go cn.readOn(0)

	var readErr error
	ended := false
	select {
	case readErr = <-readErrc:
		ended = cn.base.Err() == nil
	case <-cn.base.Done():
	}
	cn.endBurst()
	cn.pool.close() // idle workers return once the queue is empty
	interrupted := false
	if ended {
		// The requests still running finish, except those that cannot
		// without the client: subscriptions, and those waiting for an
		// answer.
		cn.sc.EndInput()
	} else {
		// The requests' contexts are cancelled already.
		cn.sc.Close()
		interrupted = cn.interruptRead()
	}
	cn.drain()
	cn.sc.Close()
	if ended || interrupted || !cn.cfg.abandonRead {
		if !ended && !interrupted {
			cn.cfg.logger.Debug("stdio: waiting for the pending read to return")
		}
		<-readerDone
	}
	cn.out.close()
	cn.restoreDeadlines()

	if err := cn.ctx.Err(); err != nil {
		return err
	}
	if err := cn.out.failure(); err != nil {
		cn.cfg.logger.Error("stdio: cannot write to the client", "err", err)
		return err
	}
	if readErr != nil && readErr != io.EOF {
		cn.cfg.logger.Error("stdio: cannot read from the client", "err", readErr)
		return readErr
	}
	return nil
}

// readOn reads the input until it ends or the reading is handed on to
// another goroutine; the goroutine that reads last reports the end.
func (cn *conn) readOn(gen uint64) {
	reading, err := cn.read(gen)
	if reading {
		cn.readErrc <- err
		close(cn.readerDone)
	}
}

// read reads the input and dispatches every line on this goroutine, so a
// message costs no hand-off between goroutines before it is decoded. It
// returns the error that ended the input, or nil once the connection is
// stopped; reading is false when another goroutine reads on. gen is the
// goroutine's generation as a reader (see pool.reader).
//
// While whole lines wait in the input buffer, the responses written
// meanwhile stay in the output buffer: it is written out before a read
// that may wait, so a burst of requests read at once is answered with one
// write, as a plain line server does.
func (cn *conn) read(gen uint64) (reading bool, err error) {
	more := false // a whole line waits in the input buffer
	for {
		if cn.base.Err() != nil {
			return true, nil
		}
		if !more {
			cn.endBurst()
			cn.out.batching.Store(false)
			if cn.out.pending() && !cn.pool.flush(gen) {
				return false, nil
			}
		}
		line, tooLong, err := cn.lr.read()
		if cn.base.Err() != nil {
			return true, nil
		}
		// More lines at hand: what this one answers can wait for them.
		// Only this goroutine reads, so that stays true until it does.
		more = cn.lr.lineBuffered()
		cn.out.batching.Store(more)
		if more {
			cn.openBurst()
		}
		if tooLong > 0 || (line != nil && !blank(line)) {
			if !cn.dispatch(item{line: line, tooLong: tooLong}, err != nil, gen) {
				return false, nil
			}
		}
		if err != nil {
			return true, err
		}
	}
}

// stream is the connection's sake.Stream: what the server sends besides
// responses (notifications, a legacy session's requests to the client).
type stream struct{ cn *conn }

// Send writes msg unless the connection has stopped; a failed write stops
// it (see output.fail).
func (s stream) Send(msg []byte) {
	if s.cn.base.Err() == nil {
		_ = s.cn.out.write(msg)
	}
}

// AwaitingAnswer is told that a request waits for the client's answer to a
// request sent on the stream: if it runs on the reading goroutine, a new
// goroutine takes the reading over now, so the answer is read.
func (s stream) AwaitingAnswer() { s.cn.pool.handOff() }

// DeferReply is told that the response of the request being handled will
// come later, from another goroutine: Serve waits for it before it
// returns, as for a running request, and a response that comes once the
// connection has stopped is dropped.
//
// A response read with others (afterBurst) is flushed with them.
func (s stream) DeferReply() (respond func(body []byte, afterBurst func(func()) bool)) {
	s.cn.pool.wg.Add(1) // a request is running, so the count is above zero
	return s.cn.respondLater
}

// writeLater is the respond function of every deferred reply.
func (cn *conn) writeLater(body []byte, afterBurst func(func()) bool) {
	if body != nil && cn.base.Err() == nil {
		_ = cn.out.writeHeld(body, afterBurst)
	}
	cn.pool.wg.Done()
}

// AfterBurst runs f once the lines read together with the request being
// handled have all been dispatched, before the reader waits for input:
// a proxy forwarding them to a stdio command writes them together. It
// reports false, and f does not run, when no such lines wait.
func (s stream) AfterBurst(f func()) bool {
	cn := s.cn
	cn.burstMu.Lock()
	defer cn.burstMu.Unlock()
	if !cn.burstOpen {
		return false
	}
	cn.afterBurst = append(cn.afterBurst, f)
	return true
}

// openBurst notes that lines wait behind the one being dispatched.
func (cn *conn) openBurst() {
	cn.burstMu.Lock()
	cn.burstOpen = true
	cn.burstMu.Unlock()
}

// endBurst closes the burst and runs what was left to its end.
func (cn *conn) endBurst() {
	cn.burstMu.Lock()
	if !cn.burstOpen && len(cn.afterBurst) == 0 {
		cn.burstMu.Unlock()
		return
	}
	cn.burstOpen = false
	fs := cn.afterBurst
	cn.afterBurst = nil
	cn.burstMu.Unlock()
	for i, f := range fs {
		f()
		fs[i] = nil
	}
}
