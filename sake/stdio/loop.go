package stdio

import (
	"strconv"
	"sync"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/transport"
)

// dispatch handles one line: a request that may run beside others goes to
// the pool, which may run it on this goroutine (runInline) unless it is
// long-lived or the input ends after it; everything
// else (notifications, responses, garbage, and initialize, whose session
// the next messages need) is handled before the next line, which keeps it
// in order and costs no goroutine. last says the input ends after this
// line; gen is the reading goroutine's generation. dispatch reports whether this goroutine still holds the reading.
func (cn *conn) dispatch(it item, last bool, gen uint64) (reading bool) {
	if it.tooLong > 0 {
		cn.cfg.logger.Warn("stdio: discarded an over-long message", "bytes", it.tooLong, "limit", cn.cfg.maxLine)
		_ = cn.out.write(tooLongError(it.tooLong, cn.cfg.maxLine))
		return true
	}
	m := cn.sc.Decode(it.line)
	if m.Concurrent() {
		if last || m.LongLived() {
			cn.pool.submit(m)
			return true
		}
		return cn.pool.runInline(m, gen)
	}
	cn.run(m)
	return true
}

// run handles a message and writes its response, unless the request was
// cancelled meanwhile: by notifications/cancelled, by the end of ctx, or
// by a failed write. The protocol says a cancelled request gets no
// response, so it is dropped.
func (cn *conn) run(m transport.Message) {
	cn.out.running.Add(1)
	defer cn.out.running.Add(-1)
	bp := replyBufs.Get().(*[]byte)
	defer putReplyBuf(bp)
	reply := m.HandleInto(cn.base, bp)
	if reply.Body == nil {
		return
	}
	if reply.Cancelled || cn.base.Err() != nil {
		cn.cfg.logger.Debug("stdio: dropped the response of a cancelled request", "id", string(m.ID()), "method", reply.Method)
		return
	}
	_ = cn.out.write(reply.Body)
}

// tooLongError is the answer to a line longer than the limit.
func tooLongError(n, limit int) []byte {
	return protocol.ErrorBody(sake.CodeInvalidRequest, "message too long: a line of "+strconv.Itoa(n)+
		" bytes was discarded; the limit is "+strconv.Itoa(limit)+" bytes")
}

// replyBufs holds the buffers replies are encoded in: a reply is copied
// into the output as soon as it is written, so its buffer serves the next.
var replyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxReplyBuf is the largest reply buffer kept: one huge reply must not
// pin its buffer for the life of the process.
const maxReplyBuf = 64 << 10

func putReplyBuf(bp *[]byte) {
	if cap(*bp) <= maxReplyBuf {
		replyBufs.Put(bp)
	}
}
