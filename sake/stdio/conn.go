package stdio

import (
	"context"
	"io"
	"strconv"
	"sync"

	"github.com/sakemcp/sake-go/sake"
)

// conn is one run of Serve: the input, the output and the requests in
// between.
type conn struct {
	srv *sake.Server
	cfg config
	r   io.Reader
	w   io.Writer
	out *output

	// ctx is Serve's context; base, the parent of every request's
	// context, also ends when a write fails.
	ctx      context.Context
	base     context.Context
	stopBase context.CancelFunc

	// Requests run on a pool of up to cfg.maxConcurrent workers, started
	// as needed and kept until Serve returns: a goroutine per request
	// would grow a fresh stack for every one. Only the loop sends on jobs,
	// and it closes it when it ends.
	jobs    chan job
	workers int // started so far; only the loop reads and writes it
	wg      sync.WaitGroup
	calls   calls
	flight  sake.InFlight

	// session is the legacy session, once an initialize opened one. Only
	// Serve's goroutine reads and sets it: requests get it in their
	// Inbound when they are read.
	session *sake.Session
	send    func(msg []byte) error // the session's sender
	notify  func(msg []byte)       // Notify of the requests handled inline

	readDeadline, writeDeadline bool // set by Serve, cleared before it returns
}

// job is a request for a worker.
type job struct {
	c   *call
	id  string
	msg []byte
	in  *sake.Inbound
}

// item is what the reading goroutine hands to the loop: a line, the
// length of a line it discarded, or the error that ended the input.
type item struct {
	line    []byte
	tooLong int
	err     error
}

func newConn(ctx context.Context, srv *sake.Server, r io.Reader, w io.Writer, cfg config) *conn {
	cn := &conn{srv: srv, cfg: cfg, r: r, w: w, ctx: ctx, jobs: make(chan job)}
	cn.base, cn.stopBase = context.WithCancel(ctx)
	cn.out = newOutput(w, func(error) { cn.stopBase() })
	cn.send = cn.out.write
	cn.notify = func(msg []byte) {
		if cn.base.Err() == nil {
			_ = cn.out.write(msg)
		}
	}
	return cn
}

// serve runs the connection: a goroutine reads lines, this one dispatches
// them, and requests run on the workers.
func (cn *conn) serve() error {
	defer cn.stopBase()
	if err := cn.ctx.Err(); err != nil {
		return err
	}
	lines := make(chan item)
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	lr := newLineReader(cn.r, cn.cfg.maxLine)
	go func() {
		defer close(readerDone)
		readLines(lr, lines, stop)
	}()

	readErr, ended := cn.loop(lines)
	close(stop)
	close(cn.jobs) // idle workers return; busy ones when their request is done
	interrupted := false
	if ended {
		// Nothing can cancel a request any more, and a subscription
		// would run forever: end the subscriptions, let the rest finish.
		cn.calls.cancelStreams()
	} else {
		// The derived contexts are cancelled already; the dispatcher's
		// tracker too, and it refuses new requests.
		cn.flight.CancelAll()
		interrupted = cn.interruptRead()
	}
	cn.drain()
	cn.flight.CancelAll()
	if cn.session != nil {
		cn.session.Close()
	}
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

// readLines reads the input until it ends or stop is closed.
func readLines(lr *lineReader, lines chan<- item, stop <-chan struct{}) {
	for {
		line, tooLong, err := lr.read()
		if tooLong > 0 || (line != nil && !blank(line)) {
			select {
			case lines <- item{line: line, tooLong: tooLong}:
			case <-stop:
				return
			}
		}
		if err != nil {
			select {
			case lines <- item{err: err}:
			case <-stop:
			}
			return
		}
	}
}

// loop dispatches lines until the input ends (ended, with the error that
// ended it) or the connection is stopped (ctx, or a failed write).
//
// When every worker is busy, a request waits as pending, and the loop goes
// on reading: notifications (a cancellation of a running request, say) and
// the client's responses are still handled. The next request stops it until
// a worker takes the pending one, so at most one request waits.
func (cn *conn) loop(lines <-chan item) (readErr error, ended bool) {
	var pending job
	has := false
	defer func() {
		if has {
			cn.drop(pending)
		}
	}()
	for cn.base.Err() == nil {
		var jobs chan<- job // nil, which never sends, unless a request waits
		if has {
			jobs = cn.jobs
		}
		select {
		case jobs <- pending:
			has = false
		case it := <-lines:
			if it.err != nil {
				if has {
					cn.hand(pending)
					has = false
				}
				return it.err, true
			}
			j, ok := cn.dispatch(it)
			if !ok {
				continue
			}
			if has {
				cn.hand(pending)
			}
			pending, has = j, !cn.tryStart(j)
		case <-cn.base.Done():
		}
	}
	return nil, false
}

// dispatch handles one line, or returns the job that runs it when it is a
// request. Requests run concurrently; everything else (notifications,
// responses, garbage, and initialize, whose session the next messages
// need) is handled before the next line, which keeps it in order and costs
// no goroutine.
func (cn *conn) dispatch(it item) (job, bool) {
	if it.tooLong > 0 {
		cn.cfg.logger.Warn("stdio: discarded an over-long message", "bytes", it.tooLong, "limit", cn.cfg.maxLine)
		_ = cn.out.write(tooLongError(it.tooLong, cn.cfg.maxLine))
		return job{}, false
	}
	p := peek(it.line)
	switch p.kind {
	case kindRequest:
		return cn.newJob(it.line, p), true
	case kindCancel:
		if p.requestID != nil {
			cn.calls.cancel(p.requestID)
		}
	}
	cn.inline(it.line)
	return job{}, false
}

// inline handles a message on the loop's goroutine.
func (cn *conn) inline(msg []byte) {
	in := &sake.Inbound{Identity: cn.cfg.identity, Session: cn.session, Notify: cn.notify, InFlight: &cn.flight}
	reply := cn.srv.Handle(cn.base, msg, in)
	if reply.Session != nil {
		cn.adopt(reply.Session)
	}
	if reply.Body != nil && cn.base.Err() == nil {
		_ = cn.out.write(reply.Body)
	}
}

// adopt makes s the connection's legacy session: the messages read from
// now on belong to it, and its broadcasts go to the output. A session
// opened by an earlier initialize is closed, and the requests still
// running in it are cancelled: they get no response.
func (cn *conn) adopt(s *sake.Session) {
	old := cn.session
	cn.session = s
	s.SetSender(cn.send)
	if old != nil && old != s {
		cn.calls.cancelSession(old)
		old.Close()
	}
}

// newJob prepares a request: its context, and its entry in calls, made
// before any worker runs it so that a cancellation read right after it
// finds it.
func (cn *conn) newJob(msg []byte, p peeked) job {
	ctx, cancel := context.WithCancel(cn.base)
	c := &call{ctx: ctx, cancel: cancel, out: cn.out, stream: p.stream, session: cn.session}
	j := job{c: c, id: string(p.id), msg: msg}
	cn.calls.add(j.id, c)
	j.in = &sake.Inbound{Identity: cn.cfg.identity, Session: cn.session, Notify: c.notify, InFlight: &cn.flight}
	return j
}

// tryStart hands a job to an idle worker, or to a new one while there are
// fewer than the limit, and reports whether it could.
func (cn *conn) tryStart(j job) bool {
	select {
	case cn.jobs <- j:
		return true
	default:
	}
	if cn.workers >= cn.cfg.maxConcurrent {
		return false
	}
	cn.workers++
	cn.wg.Add(1)
	go cn.worker(j)
	return true
}

// hand waits for a worker to take a job; if the connection stops first,
// the job is dropped.
func (cn *conn) hand(j job) {
	select {
	case cn.jobs <- j:
	case <-cn.base.Done():
		cn.drop(j)
	}
}

// drop forgets a job no worker will run.
func (cn *conn) drop(j job) {
	cn.calls.remove(j.id, j.c)
	j.c.cancel()
}

// worker runs requests until the loop ends.
func (cn *conn) worker(j job) {
	defer cn.wg.Done()
	for ok := true; ok; j, ok = <-cn.jobs {
		cn.run(j.c, j.id, j.msg, j.in)
	}
}

// run handles a request and writes its response, unless the request was
// cancelled meanwhile: by notifications/cancelled, by the end of ctx, or
// by a failed write. The dispatcher still returns a result for a
// cancelled request (often the tool's error); the protocol says a
// cancelled request gets no response, so it is dropped.
func (cn *conn) run(c *call, id string, msg []byte, in *sake.Inbound) {
	defer func() {
		cn.calls.remove(id, c)
		c.cancel()
	}()
	reply := cn.srv.Handle(c.ctx, msg, in)
	if reply.Session != nil {
		// Only initialize opens a session, and it is handled inline.
		cn.cfg.logger.Error("stdio: a request handled concurrently opened a session; closing it", "method", reply.Method)
		reply.Session.Close()
	}
	if reply.Body == nil {
		return
	}
	if c.ctx.Err() != nil {
		cn.cfg.logger.Debug("stdio: dropped the response of a cancelled request", "id", id, "method", reply.Method)
		return
	}
	_ = cn.out.write(reply.Body)
}

// drain waits for the running requests. If the connection is stopped
// meanwhile by ctx, their contexts end with it and a write blocked in the
// output is interrupted.
func (cn *conn) drain() {
	done := make(chan struct{})
	go func() {
		cn.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-cn.base.Done():
	}
	if cn.ctx.Err() != nil {
		cn.interruptWrite()
	}
	<-done
}

// tooLongError is the answer to a line longer than the limit.
func tooLongError(n, limit int) []byte {
	b := make([]byte, 0, 160)
	b = append(b, `{"jsonrpc":"2.0","id":null,"error":{"code":`...)
	b = strconv.AppendInt(b, sake.CodeInvalidRequest, 10)
	b = append(b, `,"message":"message too long: a line of `...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ` bytes was discarded; the limit is `...)
	b = strconv.AppendInt(b, int64(limit), 10)
	return append(b, ` bytes"}}`...)
}
