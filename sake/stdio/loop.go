package stdio

import (
	"strconv"

	"github.com/sakemcp/sake-go/sake"
)

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
	case kindResponse:
		cn.calls.answered(p.id)
	}
	cn.inline(it.line)
	return job{}, false
}

// inline handles a message on the loop's goroutine.
func (cn *conn) inline(msg []byte) {
	in := &sake.Inbound{Identity: cn.cfg.identity, Session: cn.session, Notify: cn.notify, InFlight: &cn.flight, Transport: "stdio"}
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
