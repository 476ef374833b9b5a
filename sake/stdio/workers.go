package stdio

import (
	"context"

	"github.com/sakemcp/sake-go/sake"
)

// job is a request for a worker.
type job struct {
	c   *call
	id  string
	msg []byte
	in  *sake.Inbound
}

// newJob prepares a request: its context, and its entry in calls, made
// before any worker runs it so that a cancellation read right after it
// finds it.
func (cn *conn) newJob(msg []byte, p peeked) job {
	ctx, cancel := context.WithCancel(cn.base)
	c := &call{ctx: ctx, base: cn.base, cancel: cancel, out: cn.out, calls: &cn.calls, stream: p.stream, session: cn.session}
	j := job{c: c, id: string(p.id), msg: msg}
	cn.calls.add(j.id, c)
	j.in = &sake.Inbound{Identity: cn.cfg.identity, Session: cn.session, Notify: c.notify, InFlight: &cn.flight, Transport: "stdio"}
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
	if c.cancelled() {
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
