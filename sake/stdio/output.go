package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// errClosed is what writes return once Serve has finished with the
// output, for example a broadcast racing with the end of the connection.
var errClosed = errors.New("stdio: the connection is closed")

// output serialises the messages written to the client: each is one line,
// and the buffer is flushed before the last writer in line lets go of the
// lock, so nothing waits in the buffer while the writer is idle.
type output struct {
	waiting atomic.Int32 // writers waiting for mu
	// batching is set while the reader handles lines that are already
	// buffered: it flushes before it next waits for input, so writers
	// leave the flush to it.
	batching atomic.Bool
	// running counts the requests being handled (see conn.run): a writer
	// waits for the others' responses before its flush only when others
	// run.
	running atomic.Int32

	mu     sync.Mutex
	bw     *bufio.Writer
	err    error // the first write error; every later write returns it
	closed bool
	// gathering is set while a writer yields before its flush (see
	// gatherFlush): the others leave the flush to it.
	gathering bool
	// held says a flush is due at the end of a burst of answers
	// (writeHeld): the writers meanwhile leave it to that.
	held bool
	// flushHeld is o.flushHeldNow, bound once.
	flushHeld func()
	fail      func(error) // told the first write error, under mu
}

func newOutput(w io.Writer, fail func(error)) *output {
	o := &output{bw: bufio.NewWriterSize(w, 64<<10), fail: fail}
	o.flushHeld = o.flushHeldNow
	return o
}

// flushHeldNow is the flush writeHeld left to the end of a burst.
func (o *output) flushHeldNow() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.held = false
	if o.err == nil && !o.closed && o.bw.Buffered() > 0 {
		if err := o.bw.Flush(); err != nil {
			o.err = err
			o.fail(err)
		}
	}
}

// write sends msg and a newline. A raw newline inside msg would split it
// in two for the client; in JSON text it can only be insignificant
// whitespace, so it becomes a space.
func (o *output) write(msg []byte) error { return o.writeHeld(msg, nil) }

// writeHeld is write, with a flush that may wait: with afterBurst, for a
// response read from another server with others (see stream.DeferReply),
// the flush waits for the end of that burst, so that its responses go
// out together.
func (o *output) writeHeld(msg []byte, afterBurst func(func()) bool) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		msg = bytes.ReplaceAll(msg, []byte{'\n'}, []byte{' '})
	}
	o.waiting.Add(1)
	o.mu.Lock()
	o.waiting.Add(-1)
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if o.closed {
		return errClosed
	}
	_, err := o.bw.Write(msg)
	if err == nil {
		err = o.bw.WriteByte('\n')
	}
	switch {
	case err != nil:
	case afterBurst != nil && (o.held || afterBurst(o.flushHeld)):
		o.held = true // the end of the burst flushes
	case o.waiting.Load() == 0 && !o.batching.Load() && !o.gathering:
		// A writer that finds others waiting leaves the flush to the
		// last of them, which always comes (it counted itself before
		// locking).
		if o.running.Load() <= 1 {
			// No other request runs: nobody else is about to write.
			err = o.bw.Flush()
		} else {
			err = o.gatherFlush()
		}
	}
	if err != nil && o.err == nil {
		o.err = err
		o.fail(err)
	}
	return err
}

// gatherFlush flushes the buffer once the goroutines ready to run have
// written their messages: a burst of responses written by several
// goroutines (the answers of a proxy's remote, read together) goes out in
// one system call, and the client reads it at once. The writer yields
// once (a yield costs the scheduler's lock and may wake another thread;
// yielding again while the buffer grew gathered no more in the gateway
// benchmark); the writers that come meanwhile leave the flush to it. It
// is called only while other requests run. o.mu is held, and held again
// on return.
func (o *output) gatherFlush() error {
	o.gathering = true
	o.mu.Unlock()
	runtime.Gosched()
	o.mu.Lock()
	o.gathering = false
	if o.err != nil {
		return o.err
	}
	if o.bw.Buffered() == 0 {
		return nil
	}
	return o.bw.Flush()
}

// pending reports whether messages wait in the buffer.
func (o *output) pending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bw.Buffered() > 0
}

// flush writes out what is buffered.
func (o *output) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil && !o.closed && o.bw.Buffered() > 0 {
		if err := o.bw.Flush(); err != nil {
			o.err = err
			o.fail(err)
		}
	}
}

// close flushes what is buffered and refuses later writes.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil && !o.closed {
		if err := o.bw.Flush(); err != nil {
			o.err = err
			o.fail(err)
		}
	}
	o.closed = true
}

// failure returns the first write error, if any.
func (o *output) failure() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}
