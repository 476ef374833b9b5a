package stdio

import "time"

// Deadlines are how Serve interrupts a read or a write blocked in a
// connection or a pollable file when it stops.

type readDeadliner interface {
	SetReadDeadline(t time.Time) error
}

type writeDeadliner interface {
	SetWriteDeadline(t time.Time) error
}

// past is a deadline that has passed: I/O fails at once.
var past = time.Unix(1, 0)

// interruptRead makes a pending and every later Read of the input fail,
// and reports whether it could.
func (cn *conn) interruptRead() bool {
	d, ok := cn.r.(readDeadliner)
	if !ok || d.SetReadDeadline(past) != nil {
		return false
	}
	cn.readDeadline = true
	return true
}

// interruptWrite does the same for the output.
func (cn *conn) interruptWrite() {
	if d, ok := cn.w.(writeDeadliner); ok && !cn.writeDeadline && d.SetWriteDeadline(past) == nil {
		cn.writeDeadline = true
	}
}

// restoreDeadlines clears the deadlines Serve set, so the caller gets its
// connection back as it gave it.
func (cn *conn) restoreDeadlines() {
	if cn.readDeadline {
		_ = cn.r.(readDeadliner).SetReadDeadline(time.Time{})
	}
	if cn.writeDeadline {
		_ = cn.w.(writeDeadliner).SetWriteDeadline(time.Time{})
	}
}
